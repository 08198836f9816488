import type { Kysely } from 'kysely';

// An opening that is a call (profiles whose call settings say callFirst, docs/voice.md): the
// opening is recorded as a voice message, as any opening is (the lead's messages, campaigns'
// counts and the "already opened" check read it), and the call that speaks it points at it.
// - calls.message_id: that opening message; its status follows the call (scheduled while the call
//   waits, blocked with the gate's code, sent once dialled, failed). Null for every other call.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('message_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calls').dropColumn('message_id').execute();
}
