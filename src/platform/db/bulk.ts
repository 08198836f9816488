import { sql, type Kysely } from 'kysely';
import { dialectOf } from './connect.js';
import type { Database } from './schema.js';

/**
 * A process about to write many rows (parley import leads) gives SQLite a
 * larger page cache: each inserted lead lands in half a dozen indexes, and
 * with SQLite's default 2 MiB cache the index pages of a growing table are
 * read back from the file again and again (the rate of a 300k-row import fell
 * by half as the table grew). PostgreSQL sizes its own buffers; nothing to do.
 */
export async function cacheForBulkWrites(db: Kysely<Database>, mebibytes: number): Promise<void> {
  if (dialectOf(db) !== 'sqlite') return;
  await sql.raw(`pragma cache_size = -${Math.max(2, Math.floor(mebibytes)) * 1024}`).execute(db);
}
