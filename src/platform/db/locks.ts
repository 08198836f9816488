import { sql } from 'kysely';
import type { Db } from './schema.js';
import { dialectOf } from './connect.js';

/** The row lock a read inside a transaction asks for; false reads without one. */
export type RowLock = 'update' | 'share' | false;

/**
 * Whether row locks exist. PostgreSQL takes them (SELECT ... FOR UPDATE / FOR
 * SHARE); SQLite has none and needs none: every transaction starts with BEGIN
 * IMMEDIATE and holds the database write lock, so its reads are already
 * serialised with every other writer.
 */
export function takesRowLocks(db: Db): boolean {
  return dialectOf(db) === 'postgres';
}

interface Lockable<Q> {
  forUpdate(of?: never): Q;
  forShare(of?: never): Q;
}

/**
 * Adds the asked-for row lock where the dialect has row locks, so capability
 * code states its intent once for both dialects. `of` names the table whose
 * rows are locked in a join (the others are only read).
 */
export function withLock<Q extends Lockable<Q>>(db: Db, q: Q, lock: RowLock | boolean, of?: string): Q {
  if (!lock || !takesRowLocks(db)) return q;
  const table = of as never;
  return lock === 'share' ? q.forShare(table) : q.forUpdate(table);
}

interface SkipLockable<Q> {
  forUpdate(): { skipLocked(): Q };
}

/**
 * Claims rows for this worker: PostgreSQL skips rows another worker holds
 * (FOR UPDATE SKIP LOCKED), so workers on many machines never wait on each
 * other; on SQLite the transaction's write lock already excludes them.
 */
export function skipLocked<Q extends SkipLockable<Q>>(db: Db, q: Q): Q {
  return takesRowLocks(db) ? q.forUpdate().skipLocked() : q;
}

/**
 * Holds a named lock until the caller's transaction ends: transactions that
 * take the same name run their checks and writes one after the other. For a
 * rule no unique index can state (one value across two tables). On
 * PostgreSQL a transaction-scoped advisory lock on the name's 64-bit hash (a
 * collision only makes two names wait for each other); on SQLite nothing, as
 * for row locks (takesRowLocks). Called outside a transaction it would hold
 * nothing on either.
 */
export async function holdUntilCommit(db: Db, name: string): Promise<void> {
  if (!takesRowLocks(db)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`.execute(db);
}
