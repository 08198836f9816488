#!/usr/bin/env node
/**
 * The folder graph of src/, from dependency-cruiser's JSON: `node bin/dev/architecture-graph.mjs` writes it as a
 * mermaid picture into docs/architecture.md between the markers below. test/architecture/folders.test.ts fails
 * when the picture there is not the one the code draws, and on folders that import each other.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'architecture.md');
export const BEGIN = '<!-- folder-graph:begin (bin/dev/architecture-graph.mjs writes this) -->';
export const END = '<!-- folder-graph:end -->';

/** The folder of src/ a module belongs to; files directly in src/ (app.ts, server.ts) are `app`. */
export const folderOf = (path) => (/^src\/[^/]+\.ts$/.test(path) ? 'app' : (/^src\/([^/]+)\//.exec(path)?.[1] ?? null));

/** Folder -> folders it imports (type-only imports included). */
export async function folderEdges() {
  const { stdout } = await promisify(execFile)(
    join(ROOT, 'node_modules', '.bin', 'depcruise'),
    ['src', '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err) => ({ stdout: err.stdout ?? '' }));
  const edges = new Map();
  for (const m of JSON.parse(stdout).modules) {
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
export function mutualPairs(edges) {
  const pairs = new Set();
  for (const [a, tos] of edges) for (const b of tos) if (edges.get(b)?.has(a)) pairs.add([a, b].sort().join('|'));
  return [...pairs].sort();
}

/** The mermaid picture: one arrow per importing pair of folders, a mutual pair drawn as one double arrow. */
export function mermaid(edges) {
  const id = (f) => f.replace(/-/g, '_');
  const lines = ['```mermaid', 'flowchart TD'];
  const mutual = new Set(mutualPairs(edges));
  for (const from of [...edges.keys()].sort()) {
    for (const to of [...edges.get(from)].sort()) {
      const pair = [from, to].sort().join('|');
      if (mutual.has(pair)) {
        if (from < to) lines.push(`  ${id(from)}["${from}/"] <--> ${id(to)}["${to}/"]`);
      } else lines.push(`  ${id(from)}["${from}/"] --> ${id(to)}["${to}/"]`);
    }
  }
  lines.push('```');
  return lines.join('\n');
}

/** The doc with its picture between the markers replaced. */
export function withPicture(doc, picture) {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`docs/architecture.md lacks the markers ${BEGIN} ... ${END}`);
  return `${doc.slice(0, begin + BEGIN.length)}\n${picture}\n${doc.slice(end)}`;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const doc = readFileSync(DOC, 'utf8');
  writeFileSync(DOC, withPicture(doc, mermaid(await folderEdges())));
  console.log('docs/architecture.md: folder graph written');
}
