import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, startTestServer, type TestServer } from '../support/harness.js';
import { csvLine, importCsv, importPhone } from './support.js';
import { until } from '../support/assert.js';

/** A process that has ended: its pid is free (a reuse within the test is not a concern on a 4M pid space). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

/**
 * `kill -9` during an API import left the whole uploaded CSV in a temporary
 * folder for ever. Uploads live in a spool root of Parley's own, a folder per
 * process (`<pid>-<start ms>`); a server starting removes the folders of
 * processes that are gone, and never those of a process still running (two
 * servers may share the root).
 */
for (const dialect of dialects()) {
  describe(`the import spool [${dialect}]`, () => {
    const root = mkdtempSync(join(tmpdir(), 'parley-spool-test-'));
    let live: ChildProcess;
    let ts: TestServer;
    const upload = (folder: string) => {
      mkdirSync(join(root, folder, 'upload-x1'), { recursive: true });
      writeFileSync(join(root, folder, 'upload-x1', 'upload.csv'), 'First Name,Phone\nAnn,+14155550100\n');
    };
    let dead: string;
    let running: string;
    beforeAll(async () => {
      const hourAgo = Date.now() - 3_600_000;
      dead = `${await deadPid()}-${hourAgo}`;
      live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
      running = `${live.pid}-${hourAgo}`;
      upload(dead);
      upload(running);
      writeFileSync(join(root, 'not-ours.txt'), 'left alone');
      ts = await startTestServer(dialect, { PARLEY_IMPORT_SPOOL_DIR: root });
    });
    afterAll(async () => {
      live.kill('SIGKILL');
      await ts.close();
      rmSync(root, { recursive: true, force: true });
    });

    it("a dead process's upload is gone after start-up; a running one's and anything else stay", () => {
      const left = readdirSync(root);
      expect(left).not.toContain(dead);
      expect(left).toContain(running);
      expect(readdirSync(join(root, running, 'upload-x1'))).toEqual(['upload.csv']);
      expect(left).toContain('not-ours.txt');
    });

    it("an API import spools in the server's own folder and removes its upload when done", async () => {
      const done = await importCsv(
        ts.acme,
        `${csvLine(['First Name', 'Phone'])}\n${csvLine(['Spooled', importPhone()])}\n`,
      );
      expect(done).toMatchObject({ status: 'completed', created: 1 });
      const own = readdirSync(root).filter((n) => n.startsWith(`${process.pid}-`));
      expect(own).toHaveLength(1);
      // The upload is removed right after the import's last write (the status can be read between the two).
      const left = await until(
        () => readdirSync(join(root, own[0]!)),
        (files) => files.length === 0,
        10_000,
        { what: 'the upload removed', every: 20 },
      );
      expect(left).toEqual([]);
    });
  });
}
