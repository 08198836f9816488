import type { Kysely } from 'kysely';

// The night floor (src/compliance/gate.ts, docs/operations.md): a message that answers the lead's
// own message names it, so the gate can tell a reply (allowed at any hour within the organization's
// reply window after the lead wrote) from a contact the organization starts (held to 08:00-21:00 where
// the lead is). messages.in_reply_to: the id of the lead's inbound message it answers; null otherwise.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('in_reply_to', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('in_reply_to').execute();
}
