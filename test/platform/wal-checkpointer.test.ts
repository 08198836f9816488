import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { tuneForBulkWrites } from '../../src/platform/db/bulk.js';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { startWalCheckpointer } from '../../src/platform/db/wal-checkpointer.js';

/**
 * The bulk writer's checkpoints on a thread (wal-checkpointer.ts): the pages
 * reach the database file without the writer copying them, the WAL still
 * starts over, and nothing is lost, even when the thread cannot work.
 */
describe('WAL checkpointer', () => {
  let dir: string;
  let store: Store;
  let file: string;
  const size = (path: string) => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  const open = async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-ckpt-'));
    file = join(dir, 'db.sqlite');
    store = openStore(`sqlite:${file}`);
    await sql`create table t (id integer primary key, v text not null)`.execute(store.db);
    // The writer never checkpoints on its own, as under tuneForBulkWrites.
    await sql`pragma wal_autocheckpoint = 0`.execute(store.db);
  };
  /** One transaction of 40 rows of 1 KB: a dozen pages and more in the WAL. */
  const commit = async (n: number) => {
    await store.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 40; i++) await sql`insert into t (v) values (${`${n}-${i}-`.padEnd(1000, 'x')})`.execute(trx);
    });
  };
  const checkpointHere = () => sql`pragma wal_checkpoint(PASSIVE)`.execute(store.db);
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies each commit into the database file on its thread', async () => {
    await open();
    const before = size(file);
    const ckpt = startWalCheckpointer({
      file,
      checkpointHere: () => {
        throw new Error('the writer was asked to checkpoint');
      },
      resetAtFrames: Number.MAX_SAFE_INTEGER,
    });
    for (let n = 0; n < 10; n++) {
      await commit(n);
      await ckpt.committed();
    }
    await ckpt.close();
    // Ten commits of 40 KB each reached the file (the writer's own checkpoint would have thrown).
    expect(size(file) - before).toBeGreaterThan(10 * 40 * 1000);
    // The thread's last report: the WAL (started over whenever a write found it all copied) fully copied.
    const last = ckpt.last();
    expect(last.log).toBeGreaterThan(0);
    expect(last.checkpointed).toBe(last.log);
  });

  it('has the writer finish the copy once the WAL holds resetAtFrames, so the WAL starts over', async () => {
    await open();
    const ckpt = startWalCheckpointer({ file, checkpointHere, resetAtFrames: 60 });
    for (let n = 0; n < 40; n++) {
      await commit(n);
      await ckpt.committed();
    }
    await ckpt.close();
    // The WAL never held much more than 60 frames (4 KiB and a 24-byte header each) and a commit or two. Without
    // the writer's reset it holds all 40 commits (1.8 MB): the thread copies beside a writer that never pauses, so
    // no write finds the WAL all copied. (A writer slow enough to leave the thread idle restarts the WAL anyway.)
    expect(size(`${file}-wal`)).toBeLessThan(150 * 4120);
    expect(await count()).toBe(40 * 40);
  });

  it('when its thread cannot work, the writer checkpoints after every commit itself: the WAL stays bounded', async () => {
    await open();
    let here = 0;
    // The thread's connection fails to open (no such folder); the writer's is fine.
    const ckpt = startWalCheckpointer({
      file: join(dir, 'missing', 'db.sqlite'),
      checkpointHere: async () => {
        here += 1;
        await checkpointHere();
      },
      resetAtFrames: Number.MAX_SAFE_INTEGER,
    });
    for (let n = 0; n < 20; n++) {
      await commit(n);
      await ckpt.committed();
    }
    await ckpt.close();
    // Only the commits made before the thread's failure was known (at most two requests ahead) went unchecked.
    expect(here).toBeGreaterThanOrEqual(18);
    expect(size(`${file}-wal`)).toBeLessThan(40 * 4120);
    expect(await count()).toBe(20 * 40);
  });

  it('tuneForBulkWrites: a file database gets the thread and its settings; nothing is lost', async () => {
    await open();
    const bulk = await tuneForBulkWrites(store.db);
    expect(
      (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db)).rows[0]!
        .wal_autocheckpoint,
    ).toBe(0);
    const before = size(file);
    for (let n = 0; n < 5; n++) {
      await commit(n);
      await bulk.committed();
    }
    await bulk.close();
    expect(size(file) - before).toBeGreaterThan(5 * 40 * 1000);
    expect(await count()).toBe(5 * 40);
    expect(
      (await sql<{ integrity_check: string }>`pragma integrity_check`.execute(store.db)).rows[0]!.integrity_check,
    ).toBe('ok');
  });

  const count = async () => (await sql<{ n: number }>`select count(*) n from t`.execute(store.db)).rows[0]!.n;
});
