import type { Kysely } from 'kysely';

// The follow-up cadence (src/followups/, docs/follow-ups.md), kept on the lead's own row:
// it is read and changed under the lead's lock with the rest of the lead, shown with it,
// and erased with it.
// - leads.follow_up_config: the cadence as the client wrote it (JSON text: step number to
//   {hours, channel, voicemailEnabled?, strategyIds?}); null when none was set.
// - leads.follow_up_step: the step the cadence is at (the next to go out), -1 stopped,
//   -2 long-term nurture, null none.
// - leads.follow_up_due_at: when that step fires; null when nothing is scheduled.
// - leads.follow_up_generation: raised by every reschedule and stop; a scheduled job carries
//   the generation it was made for and does nothing when the lead has moved on.
// - leads.follow_up_note: what last happened to the cadence (why a step did not go out).
// - messages.is_follow_up / follow_up_step: a message sent by the cadence, and its step.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('leads').addColumn('follow_up_config', 'text').execute();
  await db.schema.alterTable('leads').addColumn('follow_up_step', 'integer').execute();
  await db.schema.alterTable('leads').addColumn('follow_up_due_at', 'text').execute();
  await db.schema
    .alterTable('leads')
    .addColumn('follow_up_generation', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('leads').addColumn('follow_up_note', 'text').execute();
  await db.schema
    .alterTable('messages')
    .addColumn('is_follow_up', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('messages').addColumn('follow_up_step', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of [
    'follow_up_config',
    'follow_up_step',
    'follow_up_due_at',
    'follow_up_generation',
    'follow_up_note',
  ]) {
    await db.schema.alterTable('leads').dropColumn(column).execute();
  }
  await db.schema.alterTable('messages').dropColumn('is_follow_up').execute();
  await db.schema.alterTable('messages').dropColumn('follow_up_step').execute();
}
