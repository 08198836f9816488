import { sql, type Kysely } from 'kysely';
import { dialectOf } from './connect.js';
import type { Database } from './schema.js';
import { startWalCheckpointer, type WalCheckpointer } from './wal-checkpointer.js';

/** The SQLite settings of a process about to write many rows, as `pragma` name and value (the bench's reference uses the same). */
export const SQLITE_BULK_PRAGMAS = {
  // Each inserted lead lands in nine indexes; with SQLite's default 2 MiB cache the index pages of a growing table
  // are read back from the file again and again (the rate of a 300k-row import fell by half as the table grew).
  cache_size: -32 * 1024,
  // Checkpoints run on a thread of their own (wal-checkpointer.ts), not in the writer's COMMIT.
  wal_autocheckpoint: 0,
} as const;

/**
 * WAL frames after which the writer finishes a checkpoint itself and the WAL
 * starts over: 32,000 pages, 128 MiB at SQLite's 4 KiB page. A batch of 2,000
 * leads into a table of a million writes some 10,000 pages (its random-key
 * index inserts land on as many leaf pages), so the writer waits for the
 * thread once every three or four batches; a smaller WAL would make it wait
 * more often, a larger one slows every read (each looks a page up in the
 * WAL's index first) and holds more disk.
 */
export const RESET_AT_FRAMES = 32_000;

/** A bulk writer's companion: told after each commit, closed at the end. */
export type BulkWrites = Pick<WalCheckpointer, 'committed' | 'close'>;

const NOTHING_TO_DO: BulkWrites = { committed: async () => {}, close: async () => {} };

/**
 * A process about to write many rows (parley import leads) tunes its own
 * SQLite connection (SQLITE_BULK_PRAGMAS) and hands its checkpoints to a
 * thread (wal-checkpointer.ts); the server's connections keep the defaults.
 * PostgreSQL sizes its buffers and checkpoints itself, and an in-memory
 * SQLite database has no WAL: nothing to do.
 */
export async function tuneForBulkWrites(db: Kysely<Database>): Promise<BulkWrites> {
  if (dialectOf(db) !== 'sqlite') return NOTHING_TO_DO;
  const { rows } = await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(db);
  const file = rows[0]?.file ?? '';
  if (file === '') return NOTHING_TO_DO;
  for (const [name, value] of Object.entries(SQLITE_BULK_PRAGMAS))
    await sql.raw(`pragma ${name} = ${value}`).execute(db);
  return startWalCheckpointer({
    file,
    resetAtFrames: RESET_AT_FRAMES,
    checkpointHere: () => sql`pragma wal_checkpoint(PASSIVE)`.execute(db),
  });
}
