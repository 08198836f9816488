import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/platform/db/connect.js';

/** Group commit on SQLite: transactions share an fsync, yet each keeps its own fate and nothing is acknowledged early. */
describe('SQLite group commit', () => {
  let dir: string;
  let store: Store;
  const open = async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-gc-'));
    store = openStore(`sqlite:${join(dir, 'db.sqlite')}`);
    await sql`create table t (id integer primary key, v text not null unique)`.execute(store.db);
    return new SqliteDatabase(join(dir, 'db.sqlite'), { readonly: true });
  };
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a transaction is on disk (seen by another connection) when its promise resolves', async () => {
    const other = await open();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.db.transaction().execute(async (trx) => {
          await sql`insert into t (v) values (${`row-${i}`})`.execute(trx);
          return i;
        }).then((i) => (other.prepare('select count(*) n from t where v = ?').get(`row-${i}`) as { n: number }).n),
      ),
    );
    expect(results.every((n) => n === 1)).toBe(true);
    other.close();
  });

  it('a failing transaction rolls back alone; its neighbours in the group commit', async () => {
    const other = await open();
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'dup', 'dup', 'c'].map((v, i) =>
        store.db.transaction().execute(async (trx) => {
          await sql`insert into t (v) values (${`${v}-x`})`.execute(trx).catch(() => undefined);
          await sql`insert into t (v) values (${v})`.execute(trx);
          if (i === 4) throw new Error('app error after writes');
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected']);
    const rows = (other.prepare('select v from t order by v').all() as { v: string }[]).map((r) => r.v);
    expect(rows).toEqual(['a', 'a-x', 'b', 'b-x', 'dup', 'dup-x']);
    other.close();
  });

  it('statements outside a transaction see every committed transaction and are durable on return', async () => {
    const other = await open();
    const tx = store.db.transaction().execute(async (trx) => {
      await sql`insert into t (v) values ('in-tx')`.execute(trx);
    });
    await sql`insert into t (v) values ('autocommit')`.execute(store.db);
    expect((other.prepare("select count(*) n from t where v = 'autocommit'").get() as { n: number }).n).toBe(1);
    await tx;
    const seen = await sql<{ n: number }>`select count(*) as n from t`.execute(store.db);
    expect(Number(seen.rows[0]!.n)).toBe(2);
    other.close();
  });
});
