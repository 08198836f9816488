import { sql, type Kysely } from 'kysely';
import { dialectOf } from './connect.js';
import type { Database } from './schema.js';

/** What the scrub achieved: whether old page images may still be on disk. */
export interface ScrubResult {
  /** SQLite: false when another connection's read kept the WAL from being truncated (the next scrub finishes it). */
  complete: boolean;
}

/**
 * After an erasure has committed: no earlier copy of the erased rows stays
 * readable in the database's files. On SQLite, secure_delete (connect.ts)
 * zeroed the rows in their pages, but the WAL still holds the page images of
 * earlier commits, the erased rows in them; a TRUNCATE checkpoint copies every
 * frame into the database file (overwriting the pages there) and empties the
 * WAL. It waits (busy_timeout) for readers of older snapshots, other
 * processes' included; if they outlast it, it reports incomplete.
 *
 * PostgreSQL keeps deleted rows as dead tuples until VACUUM, and in its WAL
 * segments until they are recycled: that is the operator's (docs/operations.md).
 */
export async function scrubDeletedRows(db: Kysely<Database>): Promise<ScrubResult> {
  if (dialectOf(db) !== 'sqlite') return { complete: true };
  const { rows } = await sql<{
    busy: number;
    log: number;
    checkpointed: number;
  }>`pragma wal_checkpoint(TRUNCATE)`.execute(db);
  const r = rows[0];
  return { complete: !r || (r.busy === 0 && r.log === r.checkpointed) };
}
