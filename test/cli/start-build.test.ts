import { execFile } from 'node:child_process';
import { statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCli, root } from '../support/processes.js';

// `npm start` runs bin/build-if-stale.mjs before serving: these check that it builds only when a source moved.
const stampAt = () => statSync(join(root, 'dist/.build-stamp')).mtimeMs;

function checkBuild(): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(root, 'bin/build-if-stale.mjs')],
      { cwd: root, timeout: 240_000 },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, output: stdout + stderr }),
    );
  });
}

describe('npm start builds only a stale tree', () => {
  it('skips the build when dist/ is newer than every source, and rebuilds after a source changes', async () => {
    await buildCli();
    const built = stampAt();

    const current = await checkBuild();
    expect(current.code).toBe(0);
    expect(current.output).toBe('');
    expect(stampAt()).toBe(built);

    // A source touched after the last build makes the next start rebuild (under the suites' build lock).
    const source = join(root, 'src/server.ts');
    const now = new Date();
    utimesSync(source, now, now);
    await buildCli();
    expect(stampAt()).toBeGreaterThan(built);
  }, 300_000);
});
