import type { Kysely } from 'kysely';

// A message sent with channel voice (sendMessage, docs/voice.md) is a live call whose greeting is
// the message, placed on behalf of a person rather than by the agent:
// - calls.placed_by_person: 1 for such a call. The gate asks of it what it asks of the person's
//   message (not automated: the AI may be off, the frequency cap does not count it); null otherwise.
// - calls.override_business_hours: 1 when the sender lifted the organization's contact hours
//   (sendMessage overrideBusinessHours; never the legal night floor), kept for the call's job.
// - calls.send_when_off: 1 when the sender asked for it to go even with the AI off (sendMessage sendWhenOff).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calls').addColumn('placed_by_person', 'integer').execute();
  await db.schema.alterTable('calls').addColumn('override_business_hours', 'integer').execute();
  await db.schema.alterTable('calls').addColumn('send_when_off', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('calls').dropColumn('send_when_off').execute();
  await db.schema.alterTable('calls').dropColumn('override_business_hours').execute();
  await db.schema.alterTable('calls').dropColumn('placed_by_person').execute();
}
