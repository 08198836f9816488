import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const exemptions: Record<string, string> = createRequire(import.meta.url)(
  join(ROOT, '.dependency-cruiser.cjs'),
).mutualFolderExemptions;

/** The folder of src/ a module belongs to; files directly in src/ (app.ts, server.ts) belong to none. */
export const folderOf = (path: string): string | null => /^src\/([^/]+)\//.exec(path)?.[1] ?? null;

/** Folder -> folders it imports, from depcruise's JSON over src/ (type-only imports included). */
export async function folderEdges(): Promise<Map<string, Set<string>>> {
  const { stdout } = await run(
    join(ROOT, 'node_modules', '.bin', 'depcruise'),
    ['src', '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  const modules = (JSON.parse(stdout) as { modules: { source: string; dependencies: { resolved: string }[] }[] })
    .modules;
  const edges = new Map<string, Set<string>>();
  for (const m of modules) {
    const from = folderOf(m.source);
    if (!from) continue;
    for (const d of m.dependencies) {
      const to = folderOf(d.resolved);
      if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return edges;
}

/** Pairs of folders that import each other, as `a|b` with a < b. */
export function mutualPairs(edges: Map<string, Set<string>>): string[] {
  const pairs = new Set<string>();
  for (const [a, tos] of edges) for (const b of tos) if (edges.get(b)?.has(a)) pairs.add([a, b].sort().join('|'));
  return [...pairs].sort();
}

describe('capability folders form a directed graph', () => {
  it('no two folders of src/ import each other, except the pairs .dependency-cruiser.cjs lists with a reason', async () => {
    const pairs = mutualPairs(await folderEdges());
    expect(pairs.filter((p) => !(p in exemptions))).toEqual([]);
    // A pair no longer mutual leaves the list: the exemptions only shrink.
    expect(Object.keys(exemptions).filter((p) => !pairs.includes(p))).toEqual([]);
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
