import { CompiledQuery, type Compilable } from 'kysely';
import { dialectOf } from './connect.js';
import { nameStatement } from './prepared.js';
import type { Db } from './schema.js';

/**
 * Independent writes of one transaction, in one round trip on PostgreSQL.
 *
 * PostgreSQL is a network hop away and each statement waits for the one
 * before; an opt-out's three writes (suppressions, the lead, the outbox) cost
 * three round trips while the row lock is held. Here they go as one statement
 * of data-modifying CTEs. In that form every part sees the same snapshot and
 * none sees another's effect, so the writes must touch different tables and
 * must not read what a sibling writes. SQLite runs in process, where a round
 * trip costs nothing: it runs them one after another.
 *
 * Values must reach each query as bound parameters (Kysely's default): the
 * parameters are renumbered in the SQL text, which is therefore refused if it
 * holds a quoted literal.
 */
export async function executeTogether(db: Db, queries: Compilable<unknown>[]): Promise<void> {
  if (queries.length === 0) return;
  if (queries.length === 1 || dialectOf(db) === 'sqlite') {
    for (const q of queries) await db.executeQuery(q);
    return;
  }
  const parts: string[] = [];
  const parameters: unknown[] = [];
  for (const q of queries) {
    const c = q.compile();
    if (c.sql.includes("'")) throw new Error('executeTogether: a query holds a literal; pass values as parameters');
    const offset = parameters.length;
    parts.push(`w${parts.length} as (${c.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`);
    parameters.push(...c.parameters);
  }
  const text = `with ${parts.join(', ')} select 1`;
  // The same few shapes recur (an opt-out of one, two or three channels): PostgreSQL keeps them planned.
  nameStatement(text);
  await db.executeQuery(CompiledQuery.raw(text, parameters));
}

/**
 * Runs work that is a single statement where it costs least. On PostgreSQL a
 * statement is atomic by itself, and a transaction around it would add two
 * round trips (BEGIN, COMMIT). On SQLite a statement outside a transaction
 * commits (and waits for its fsync) on its own, while a transaction joins
 * the open group commit (sqlite-group-commit.ts) and shares its fsync with
 * whatever else commits then: the worker's concurrent claim and outcome writes.
 */
export async function singleStatement<T>(db: Db, work: (db: Db) => Promise<T>): Promise<T> {
  if (dialectOf(db) === 'postgres') return work(db);
  return db.transaction().execute((trx) => work(trx));
}
