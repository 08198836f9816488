import type { Kysely } from 'kysely';

// Pacing at the provider, not only in the schedule (src/sending-numbers/pacing.ts, docs/sending-numbers.md).
// - sending_numbers.departure_ms: epoch milliseconds (a double, like next_slot_ms), the earliest
//   instant the number's next segment may actually leave. next_slot_ms spaces the slots handed
//   out; this spaces the departures, so sends whose slots passed while workers lagged cannot
//   leave together.
// - messages.paced_since: when the message first asked for a slot (ISO text); a message that
//   has to take a fresh slot keeps it, so the maximum wait counts from there, not from each new slot.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sending_numbers')
    .addColumn('departure_ms', 'double precision', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('messages').addColumn('paced_since', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('paced_since').execute();
  await db.schema.alterTable('sending_numbers').dropColumn('departure_ms').execute();
}
