#!/usr/bin/env node
/**
 * The renames of issue 27, as a script that can be run again: `node bin/dev/apply-renames.mjs`.
 *
 * Branches written while the renames were under way still use the old paths; after merging one, run this again.
 * It `git mv`s whatever is still at an old path (a file another branch added to an old folder included), rewrites
 * every relative import that still points at an old path, and every path a comment, doc or config names. A second
 * run changes nothing. Run `npm run format` afterwards only if it reports rewritten imports (their lines may grow).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** Old path -> new path, relative to the repository; a path ending in `/` is a folder. */
const MOVES = [
  // The server side of the console, apart from the Preact app in console/.
  ['src/console/', 'src/console-api/'],
  // conversation/ held only the inbound path.
  ['src/conversation/', 'src/inbound/'],
  ['test/conversation/', 'test/inbound/'],
  // Twilio in one folder: its REST clients and TwiML beside its webhooks.
  ['src/channels/twilio.ts', 'src/providers/twilio/adapters.ts'],
  ['src/channels/twiml.ts', 'src/providers/twilio/twiml.ts'],
  ['src/calls/twilio-calls.ts', 'src/providers/twilio/calls-api.ts'],
  ['src/calls/twiml.ts', 'src/providers/twilio/relay-twiml.ts'],
  // The contract every provider adapter implements sits below the adapters, so channels/ -> providers/ only.
  ['src/channels/channel.ts', 'src/providers/channel-adapter.ts'],
];

/** Where relative imports and path mentions are rewritten. */
const SCOPE = ['src', 'test', 'bench', 'bin', 'console', 'docs'];
const SCOPE_FILES = [
  'README.md',
  '.dependency-cruiser.cjs',
  'vitest.config.ts',
  'vitest.all.config.ts',
  'vitest.mutation.config.ts',
  'stryker.config.mjs',
  'biome.jsonc',
  'package.json',
];
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const TEXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|md|json|jsonc|css|html)$/;
const SELF = 'bin/dev/apply-renames.mjs';

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });
const tracked = () => git('ls-files', '-z').split('\0').filter(Boolean);

/** The new path of an old one, or the path itself. */
function moved(path) {
  for (const [from, to] of MOVES) {
    if (from.endsWith('/') ? path.startsWith(from) : path === from) return to + path.slice(from.length);
  }
  return path;
}

/** The old path a file had, when it sits at a new one (the inverse of `moved`). */
function previous(path) {
  for (const [from, to] of MOVES) {
    if (to.endsWith('/') ? path.startsWith(to) : path === to) return from + path.slice(to.length);
  }
  return null;
}

// 1. Move what is still at an old path, file by file, so files added to an old folder later move too.
let movedCount = 0;
for (const file of tracked()) {
  const to = moved(file);
  if (to === file || !existsSync(join(ROOT, file))) continue;
  if (existsSync(join(ROOT, to))) throw new Error(`both ${file} and ${to} exist: merge them by hand`);
  mkdirSync(dirname(join(ROOT, to)), { recursive: true });
  git('mv', file, to);
  movedCount++;
}

// Old folders left empty go, so the README's Layout check does not see them.
for (const [from] of MOVES.filter(([f]) => f.endsWith('/'))) {
  const dir = join(ROOT, from);
  if (existsSync(dir) && readdirSync(dir, { recursive: true }).every((e) => statSync(join(dir, e)).isDirectory()))
    rmSync(dir, { recursive: true });
}

// 2. Rewrite relative imports that no longer resolve.
const files = tracked().filter(
  (f) =>
    f !== SELF && existsSync(join(ROOT, f)) && (SCOPE.some((d) => f.startsWith(`${d}/`)) || SCOPE_FILES.includes(f)),
);
const exists = (path) => {
  const full = join(ROOT, path);
  const candidates = [
    full,
    full.replace(/\.js$/, '.ts'),
    full.replace(/\.js$/, '.tsx'),
    full.replace(/\.js$/, '.d.ts'),
  ];
  return (
    candidates.some((c) => existsSync(c) && statSync(c).isFile()) || (existsSync(full) && statSync(full).isDirectory())
  );
};
const specifier = (fromDir, target) => {
  const rel = posix.relative(fromDir, target);
  return rel.startsWith('.') ? rel : `./${rel}`;
};

/** `moved` for an import target, written `x.js` for the file `x.ts`. */
function movedTarget(target) {
  if (!target.endsWith('.js')) return moved(target);
  const asTs = moved(target.replace(/\.js$/, '.ts'));
  return asTs.endsWith('.ts') ? asTs.replace(/\.ts$/, '.js') : moved(target);
}

/** The specifier `spec` written in `file` should have now, or null when it still resolves. */
function rewritten(file, spec) {
  const here = posix.dirname(file);
  const target = posix.normalize(posix.join(here, spec));
  if (exists(target)) return null;
  if (movedTarget(target) !== target && exists(movedTarget(target))) return specifier(here, movedTarget(target));
  const old = previous(file);
  if (!old) return null;
  // A moved file's own imports are still relative to where it was.
  const oldTarget = posix.normalize(posix.join(posix.dirname(old), spec));
  if (exists(oldTarget)) return specifier(here, oldTarget);
  if (exists(movedTarget(oldTarget))) return specifier(here, movedTarget(oldTarget));
  return null;
}

const IMPORT = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bvi\.mock\(\s*|\brequire\(\s*)(['"])(\.\.?\/[^'"]+)\2/g;

// 3. Path mentions in comments, docs and configs.
const MENTIONS = [];
for (const [from, to] of MOVES) {
  if (from.endsWith('/')) {
    // `src/console/`, `conversation/` (bare folder names are unique enough except console/, done by hand).
    MENTIONS.push([new RegExp(`(?<![\\w.-])${literal(from)}`, 'g'), to]);
    const bare = from.replace(/^src\//, '');
    if (bare !== from && bare !== 'console/')
      MENTIONS.push([new RegExp(`(?<![\\w./-])${literal(bare)}`, 'g'), to.replace(/^src\//, '')]);
  } else {
    const bare = from.replace(/^src\//, '').replace(/\.ts$/, '');
    const bareTo = to.replace(/^src\//, '').replace(/\.ts$/, '');
    MENTIONS.push([new RegExp(`(?<![\\w.-])(src/)?${literal(bare)}\\.(ts|js)\\b`, 'g'), `$1${bareTo}.$2`]);
  }
}
// The moved folders' files named without their folder's `src/`: `console/guard.ts` is `console-api/guard.ts` now.
for (const file of tracked().filter((f) => f.startsWith('src/console-api/'))) {
  const name = file.slice('src/console-api/'.length).replace(/\.ts$/, '');
  MENTIONS.push([new RegExp(`(?<![\\w./-])console/${literal(name)}\\.(ts|js)\\b`, 'g'), `console-api/${name}.$1`]);
}
function literal(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

let importCount = 0;
let mentionCount = 0;
for (const file of files) {
  if (!TEXT.test(file) && !file.endsWith('.md')) continue;
  const before = readFileSync(join(ROOT, file), 'utf8');
  let text = before;
  if (CODE.test(file)) {
    text = text.replace(IMPORT, (whole, head, quote, spec) => {
      const next = rewritten(file, spec);
      if (next === null) return whole;
      importCount++;
      if (process.env.VERBOSE) console.log(`${file}: ${spec} -> ${next}`);
      return `${head}${quote}${next}${quote}`;
    });
  }
  for (const [pattern, replacement] of MENTIONS) {
    text = text.replace(pattern, (...m) => {
      mentionCount++;
      return m[0].replace(new RegExp(pattern.source), replacement);
    });
  }
  if (text !== before) writeFileSync(join(ROOT, file), text);
}

console.log(
  `apply-renames: ${movedCount} file(s) moved, ${importCount} import(s) and ${mentionCount} mention(s) rewritten` +
    ` (${relative(process.cwd(), ROOT) || '.'})`,
);
