import type { Kysely } from 'kysely';

// An import runs inside one process (the API's background or the CLI). If that process
// dies, nothing would ever end its row: it said `running` for ever. The process now beats
// (heartbeat_at, with each batch and on a timer); a running import whose beat is old is
// reported failed, with how to finish it (run the same file again).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('imports').addColumn('heartbeat_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('imports').dropColumn('heartbeat_at').execute();
}
