import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { prepared } from '../../src/platform/db/prepared.js';
import type { Db } from '../../src/platform/db/schema.js';
import { dialects, freshDatabase } from '../support/harness.js';

/** Prepared queries: compiled once, run with each call's own values, on both dialects, in and out of transactions. */
for (const dialect of dialects()) {
  describe(`prepared queries (${dialect})`, () => {
    let store: Store;
    let drop: () => Promise<void>;
    // A table of its own: the query shapes under test need no application schema.
    const db = () => store.db as unknown as Db;
    beforeAll(async () => {
      const fresh = await freshDatabase(dialect);
      drop = fresh.drop;
      store = openStore(fresh.url);
      await sql`create table p (org text not null, id text not null, v text not null, primary key (org, id))`.execute(
        store.db,
      );
      for (const org of ['a', 'b'])
        for (let i = 0; i < 5; i++)
          await sql`insert into p values (${org}, ${`id${i}`}, ${`${org}-${i}`})`.execute(store.db);
    });
    afterAll(async () => {
      await store.close();
      await drop();
    });

    const page = prepared((d: Db, org: string, after: string, limit: number) =>
      (d as any)
        .selectFrom('p')
        .select(['id', 'v'])
        .where('org', '=', org)
        .where('id', '>', after)
        .where('v', '<>', 'never')
        .orderBy('id')
        .limit(limit),
    );

    it('answers each call with its own arguments, fixed values kept in place', async () => {
      expect((await page(db(), 'a', '', 2)).map((r: any) => r.v)).toEqual(['a-0', 'a-1']);
      expect((await page(db(), 'b', 'id2', 10)).map((r: any) => r.v)).toEqual(['b-3', 'b-4']);
      expect(await page(db(), 'c', '', 10)).toEqual([]);
    });

    it('runs inside a transaction and sees its uncommitted writes', async () => {
      const seen = await db()
        .transaction()
        .execute(async (trx) => {
          await sql`insert into p values ('c', 'id9', 'c-9')`.execute(trx);
          const rows = await page(trx, 'c', '', 10);
          throw Object.assign(new Error('roll back'), { rows });
        })
        .catch((e: { rows: unknown[] }) => e.rows);
      expect(seen).toEqual([{ id: 'id9', v: 'c-9' }]);
      expect(await page(db(), 'c', '', 10)).toEqual([]);
    });

    it.runIf(dialect === 'postgres')(
      'runs as a named server-side statement on PostgreSQL, unless turned off',
      async () => {
        const fresh = await freshDatabase('postgres');
        try {
          for (const namedStatements of [true, false]) {
            // One connection, so the session that ran the query is the one asked.
            const one = openStore(fresh.url, 1, { namedStatements });
            await sql`create table if not exists p (org text not null, id text not null, v text not null, primary key (org, id))`.execute(
              one.db,
            );
            expect(await page(one.db as unknown as Db, 'a', '', 1)).toEqual([]);
            const statements = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(one.db);
            expect(statements.rows.some((r) => r.name.startsWith('parley_'))).toBe(namedStatements);
            await one.close();
          }
        } finally {
          await fresh.drop();
        }
      },
    );

    it('refuses a builder that puts an argument into the SQL text or alters it', async () => {
      const inText = prepared((d: Db, org: string) =>
        (d as any)
          .selectFrom('p')
          .selectAll()
          .where(sql.raw(`org = '${org}'`)),
      );
      await expect(inText(db(), 'a')).rejects.toThrow(/reached the SQL text/);
      const altered = prepared((d: Db, org: string) =>
        (d as any).selectFrom('p').selectAll().where('org', '=', `${org}x`),
      );
      await expect(altered(db(), 'a')).rejects.toThrow(/altered/);
    });
  });
}
