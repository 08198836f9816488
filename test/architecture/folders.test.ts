import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderEdges, mermaid, mutualPairs, withPicture } from '../../bin/dev/architecture-graph.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const exemptions: Record<string, string> = createRequire(import.meta.url)(
  join(ROOT, '.dependency-cruiser.cjs'),
).mutualFolderExemptions;

describe('capability folders form a directed graph', () => {
  const graph = folderEdges(); // one depcruise run for both checks
  it('no two folders of src/ import each other, except the pairs .dependency-cruiser.cjs lists with a reason', async () => {
    const pairs = mutualPairs(await graph);
    expect(pairs.filter((p) => !(p in exemptions))).toEqual([]);
    // A pair no longer mutual leaves the list: the exemptions only shrink.
    expect(Object.keys(exemptions).filter((p) => !pairs.includes(p))).toEqual([]);
  }, 120_000);

  it("docs/architecture.md's picture is the one the code draws (node bin/dev/architecture-graph.mjs)", async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    expect(withPicture(doc, mermaid(await graph))).toBe(doc);
  }, 120_000);

  it('every exemption states its reason', () => {
    for (const [pair, why] of Object.entries(exemptions)) expect(`${pair}: ${why}`).toMatch(/^\S+\|\S+: .{20,}/);
  });

  it('the check bites: two folders importing each other are a pair', () => {
    const edges = new Map([
      ['leads', new Set(['platform', 'tags'])],
      ['tags', new Set(['leads'])],
      ['platform', new Set<string>()],
    ]);
    expect(mutualPairs(edges)).toEqual(['leads|tags']);
  });
});
