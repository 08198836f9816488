import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Answers when the database does (readiness probes); throws when it cannot be reached. */
export async function ping(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
