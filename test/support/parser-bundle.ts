import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
// tsx's compiler: the tests already run on tsx, which depends on it.
import { build } from 'esbuild';

/**
 * The import's parsing thread (src/imports/parse-thread.ts) bundled to one JavaScript file, once per run, and
 * named to the test processes by PARLEY_TEST_PARSER_BUNDLE. From the TypeScript sources each import's new thread
 * otherwise registers tsx and compiles its modules anew: an import of two rows took some 500 ms instead of 150
 * (imports.api, load average 7), and the import suites run a few hundred imports. Built from the current
 * sources at each run, so never stale. Answers its removal.
 */
export async function bundleParser(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-parser-'));
  const outfile = join(dir, 'parse-worker.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../../src/imports/parse-worker.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  process.env.PARLEY_TEST_PARSER_BUNDLE = outfile;
  return () => rm(dir, { recursive: true, force: true });
}
