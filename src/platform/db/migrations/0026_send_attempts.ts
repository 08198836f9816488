import type { Kysely } from 'kysely';

// At most once to the provider (channels/outbound.ts, docs/operations.md): before a message is
// handed to a provider the send path records that an attempt is under way, so a send whose
// process died while the provider was answering is found again and reconciled, never re-sent blind.
// - messages.attempt_at: when the attempt began (ISO text); null when no attempt is under way.
// - messages.attempt_from: the sender it used (the organization's own number), what the
//   provider's message list is filtered by; the recipient is the lead's address.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('attempt_at', 'text').execute();
  await db.schema.alterTable('messages').addColumn('attempt_from', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('attempt_from').execute();
  await db.schema.alterTable('messages').dropColumn('attempt_at').execute();
}
