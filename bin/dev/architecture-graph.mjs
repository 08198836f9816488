#!/usr/bin/env node
/**
 * The folder graph of src/, from dependency-cruiser's JSON: `node bin/dev/architecture-graph.mjs` writes into
 * docs/architecture.md, each between its markers, the graph as a mermaid picture, the folders still in a cycle
 * (`foldersInCycle` in .dependency-cruiser.cjs) and each capability's public surface (`publicSurfaces` there).
 * test/architecture/folders.test.ts and surfaces.test.ts fail when the page is not what this writes, on folders
 * that import each other, on a cycle the pin does not match, and on a surface the code does not match.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(import.meta.dirname, '..', '..');
const DOC = join(ROOT, 'docs', 'architecture.md');
const marker = (name) => [
  `<!-- ${name}:begin (bin/dev/architecture-graph.mjs writes this) -->`,
  `<!-- ${name}:end -->`,
];
export const [BEGIN, END] = marker('folder-graph');
/** The folders that wire everything: they may import any file, and nothing imports them. */
export const ROOTS = ['app', 'cli', 'worker'];

/** The folder of src/ a module belongs to; files directly in src/ (app.ts, server.ts) are `app`. */
export const folderOf = (path) => (/^src\/[^/]+\.ts$/.test(path) ? 'app' : (/^src\/([^/]+)\//.exec(path)?.[1] ?? null));

/** dependency-cruiser's modules of src/ (type-only imports included), with the project's config. */
export async function cruise() {
  const { stdout } = await promisify(execFile)(
    join(ROOT, 'node_modules', '.bin', 'depcruise'),
    ['src', '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err) => ({ stdout: err.stdout ?? '' }));
  return JSON.parse(stdout).modules;
}

/** Folder -> folders it imports (type-only imports included). */
export async function folderEdges(modules) {
  const edges = new Map();
  for (const m of modules ?? (await cruise())) {
    const from = folderOf(m.source);
    if (!from) continue;
    for (const d of m.dependencies) {
      const to = folderOf(d.resolved);
      if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return edges;
}

/** Folder -> its files (path inside the folder) that another folder, other than a root, imports. */
export function importedFromOutside(modules) {
  const used = new Map();
  for (const m of modules) {
    const from = folderOf(m.source);
    if (!from || ROOTS.includes(from)) continue;
    for (const d of m.dependencies) {
      const to = folderOf(d.resolved);
      if (!to || to === from) continue;
      used.set(to, (used.get(to) ?? new Set()).add(d.resolved.slice(`src/${to}/`.length)));
    }
  }
  return used;
}

/** Pairs of folders that import each other, as `a|b` with a < b. */
export function mutualPairs(edges) {
  const pairs = new Set();
  for (const [a, tos] of edges) for (const b of tos) if (edges.get(b)?.has(a)) pairs.add([a, b].sort().join('|'));
  return [...pairs].sort();
}

/** The strongly connected components of more than one folder (Tarjan), each sorted, largest first. */
export function cycles(edges) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const found = [];
  const visit = (v) => {
    index.set(v, index.size);
    low.set(v, index.get(v));
    stack.push(v);
    for (const w of [...(edges.get(v) ?? [])].sort()) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = stack.splice(stack.indexOf(v));
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of [...edges.keys()].sort()) if (!index.has(v)) visit(v);
  return found.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
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

/** The folders of the pinned cycle, as one line of the page. */
export const cycleLine = (folders) =>
  folders.length ? `${folders.length} folders: ${folders.map((f) => `\`${f}/\``).join(', ')}.` : 'none.';

/** The surfaces as a table: a folder, and the files other folders may import from it. */
export function surfacesTable(surfaces) {
  const rows = Object.entries(surfaces).map(
    ([folder, files]) => `| \`${folder}/\` | ${files.length ? files.map((f) => `\`${f}\``).join(', ') : '(none)'} |`,
  );
  return ['| folder | what other folders may import |', '|---|---|', ...rows].join('\n');
}

/** The doc with the text between one pair of markers replaced. */
export function withSection(doc, name, text) {
  const [begin, end] = marker(name);
  const at = doc.indexOf(begin);
  const until = doc.indexOf(end);
  if (at < 0 || until < at) throw new Error(`docs/architecture.md lacks the markers ${begin} ... ${end}`);
  return `${doc.slice(0, at + begin.length)}\n${text}\n${doc.slice(until)}`;
}

/** The doc with its picture between the markers replaced. */
export const withPicture = (doc, picture) => withSection(doc, 'folder-graph', picture);

/** The whole page as this tool writes it: the picture from the code, the cycle and surfaces from the config. */
export function page(doc, edges, config) {
  const withGraph = withPicture(doc, mermaid(edges));
  const withCycle = withSection(withGraph, 'folder-cycle', cycleLine(config.foldersInCycle.folders));
  return withSection(withCycle, 'surfaces', surfacesTable(config.publicSurfaces));
}

/** .dependency-cruiser.cjs, with its non-enumerable lists (mutual pairs, the cycle, the surfaces). */
export const config = () => createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs'));

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  writeFileSync(DOC, page(readFileSync(DOC, 'utf8'), await folderEdges(), config()));
  console.log('docs/architecture.md: folder graph, cycle and surfaces written');
}
