#!/usr/bin/env node
// `npm start` and `npm ci` call this: the build (about 9 s here) runs only when a source is newer than the
// last complete build, so a start with a current dist/ answers in well under 2 s.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const stamp = join(root, 'dist', '.build-stamp');
const inputs = ['src', 'console', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

function newestMtime(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted source changes its folder's time
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

function builtAt() {
  try {
    return statSync(stamp).mtimeMs;
  } catch {
    return -1;
  }
}

const force = process.argv.includes('--force');
const sourcesAt = Math.max(...inputs.map((p) => newestMtime(join(root, p))));
if (!force && builtAt() >= sourcesAt) process.exit(0);

const run = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
if (run.status !== 0) process.exit(run.status ?? 1);
// Written only after a whole build succeeded: an interrupted build is redone on the next start.
writeFileSync(stamp, `${new Date().toISOString()}\n`);
