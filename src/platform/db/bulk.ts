import { sql, type Kysely } from 'kysely';
import { dialectOf } from './connect.js';
import type { Database } from './schema.js';

/** The SQLite settings of a process about to write many rows, as `pragma` name and value (the bench's reference uses the same). */
export const SQLITE_BULK_PRAGMAS = {
  // Each inserted lead lands in ten indexes; with SQLite's default 2 MiB cache the index pages of a growing table
  // are read back from the file again and again (the rate of a 300k-row import fell by half as the table grew).
  cache_size: -32 * 1024,
  // A checkpoint copies every page the WAL holds into the database file. With the default (1,000 pages) a batch
  // of 2,000 random-key index inserts checkpointed at nearly every commit, so a hot index page was written back
  // once per batch; at 16,000 pages (64 MiB of WAL) it is written back once per several batches. Commits stay
  // durable (synchronous=FULL syncs the WAL on each); only the copying into the main file is batched.
  wal_autocheckpoint: 16_000,
} as const;

/**
 * A process about to write many rows (parley import leads) tunes its own
 * SQLite connection (SQLITE_BULK_PRAGMAS); the server's connections keep the
 * defaults. PostgreSQL sizes its buffers and checkpoints itself: nothing to do.
 */
export async function tuneForBulkWrites(db: Kysely<Database>): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return;
  for (const [name, value] of Object.entries(SQLITE_BULK_PRAGMAS)) await sql.raw(`pragma ${name} = ${value}`).execute(db);
}
