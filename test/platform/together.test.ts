import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import type { Db } from '../../src/platform/db/schema.js';
import { executeTogether } from '../../src/platform/db/together.js';
import { dialects, freshDatabase } from '../support/harness.js';

/** Independent writes sent together: every value lands in its own place, and all commit or roll back with the transaction. */
for (const dialect of dialects()) {
  describe(`executeTogether (${dialect})`, () => {
    let store: Store;
    let drop: () => Promise<void>;
    const db = () => store.db as any;
    beforeAll(async () => {
      const fresh = await freshDatabase(dialect);
      drop = fresh.drop;
      store = openStore(fresh.url);
      await sql`create table a (k text primary key, v text not null)`.execute(store.db);
      await sql`create table b (k text primary key, n integer not null)`.execute(store.db);
      await sql`insert into b values ('x', 1)`.execute(store.db);
    });
    afterAll(async () => {
      await store.close();
      await drop();
    });

    it('runs every write with its own parameters (renumbered when combined)', async () => {
      await db()
        .transaction()
        .execute((trx: Db) =>
          executeTogether(trx, [
            (trx as any).insertInto('a').values([
              { k: 'k1', v: 'v1' },
              { k: 'k2', v: 'v2' },
            ]),
            (trx as any).updateTable('b').set({ n: 7 }).where('k', '=', 'x'),
            (trx as any).insertInto('b').values({ k: 'y', n: 9 }),
          ]),
        );
      expect((await sql<{ k: string; v: string }>`select k, v from a order by k`.execute(store.db)).rows).toEqual([
        { k: 'k1', v: 'v1' },
        { k: 'k2', v: 'v2' },
      ]);
      expect(
        (await sql<{ k: string; n: number }>`select k, n from b order by k`.execute(store.db)).rows.map((r) => [
          r.k,
          Number(r.n),
        ]),
      ).toEqual([
        ['x', 7],
        ['y', 9],
      ]);
    });

    it('commits nothing when the transaction fails after it', async () => {
      await expect(
        db()
          .transaction()
          .execute(async (trx: Db) => {
            await executeTogether(trx, [
              (trx as any).insertInto('a').values({ k: 'k3', v: 'v3' }),
              (trx as any).updateTable('b').set({ n: 0 }),
            ]);
            throw new Error('abort');
          }),
      ).rejects.toThrow('abort');
      expect((await sql`select k from a where k = 'k3'`.execute(store.db)).rows).toEqual([]);
      expect(
        (await sql<{ n: number }>`select n from b where k = 'x'`.execute(store.db)).rows.map((r) => Number(r.n)),
      ).toEqual([7]);
    });

    it.runIf(dialect === 'postgres')(
      'refuses a query with a literal in its text (its $ signs could not be renumbered safely)',
      async () => {
        await expect(
          executeTogether(db(), [
            db().insertInto('a').values({ k: 'k4', v: 'v4' }),
            db()
              .updateTable('a')
              .set({ v: sql.lit('lit') }),
          ]),
        ).rejects.toThrow(/literal/);
      },
    );
  });
}
