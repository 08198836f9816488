import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { config, cycles, folderEdges, mutualPairs, page } from '../../bin/dev/architecture-graph.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const { mutualFolderExemptions: exemptions, foldersInCycle } = config();

describe('capability folders form a directed graph', () => {
  const graph = folderEdges(); // one depcruise run for the checks below
  it('no two folders of src/ import each other, except the pairs .dependency-cruiser.cjs lists with a reason', async () => {
    const pairs = mutualPairs(await graph);
    expect(pairs.filter((p) => !(p in exemptions))).toEqual([]);
    // A pair no longer mutual leaves the list: the exemptions only shrink.
    expect(Object.keys(exemptions).filter((p) => !pairs.includes(p))).toEqual([]);
  }, 120_000);

  it('the folders in a cycle are exactly those .dependency-cruiser.cjs pins (foldersInCycle): it only shrinks', async () => {
    const found = cycles(await graph);
    // One component at most: a second one is a new cycle, not a pinned one.
    expect(found.length).toBeLessThanOrEqual(1);
    // Equal, not a subset: a folder that left the cycle is taken off the pin, so it cannot come back unnoticed.
    expect(found.flat().sort()).toEqual([...foldersInCycle.folders].sort());
  }, 120_000);

  it("docs/architecture.md's picture, cycle and surfaces are what node bin/dev/architecture-graph.mjs writes", async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    expect(page(doc, await graph, config())).toBe(doc);
  }, 120_000);

  it('every exemption states its reason', () => {
    for (const [pair, why] of Object.entries(exemptions)) expect(`${pair}: ${why}`).toMatch(/^\S+\|\S+: .{20,}/);
    expect(foldersInCycle.why.length).toBeGreaterThan(40);
  });

  it('the check bites: two folders importing each other are a pair', () => {
    const edges = new Map([
      ['leads', new Set(['platform', 'tags'])],
      ['tags', new Set(['leads'])],
      ['platform', new Set<string>()],
    ]);
    expect(mutualPairs(edges)).toEqual(['leads|tags']);
  });

  it('the cycle check bites: a longer cycle is one component, and folders hanging off it are not in it', () => {
    const edges = new Map([
      ['agent', new Set(['leads', 'platform'])],
      ['leads', new Set(['tags', 'platform'])],
      ['tags', new Set(['agent'])],
      ['app', new Set(['agent', 'tags'])],
      ['jobs', new Set(['platform'])],
    ]);
    expect(cycles(edges)).toEqual([['agent', 'leads', 'tags']]);
    edges.set('tags', new Set());
    expect(cycles(edges)).toEqual([]);
  });
});
