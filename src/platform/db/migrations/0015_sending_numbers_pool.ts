import type { Kysely } from 'kysely';

// A pool of sending numbers per organization (src/sending-numbers/, docs/sending-numbers.md).
// - sending_numbers: one row per number; `number` is unique across the instance because
//   inbound provider webhooks find the organization by it. The row is also the number's
//   pacing bucket: next_slot_ms (epoch milliseconds, a double so k/rate adds no rounding
//   drift at high rates) is the earliest instant the next segment may go; day and
//   day_segments count the segments reserved on one UTC day against daily_cap.
//   assigned_leads counts the leads stuck to it (the least loaded wins a new lead).
// - leads.sms_sending_number_id / voice_sending_number_id: the sticky sender of each
//   channel, on the lead's own row so it is set under the lead's lock and erased with it.
// - messages.segments: the SMS segments the message went out as; sending_number_id and
//   paced_until: the pool number and the pacing slot it was given (it waits for it, or went at it).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sending_numbers')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('rate_per_second', 'double precision', (c) => c.notNull())
    .addColumn('daily_cap', 'integer')
    .addColumn('next_slot_ms', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('day', 'text')
    .addColumn('day_segments', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('assigned_leads', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sending_numbers_pkey', ['organization_id', 'id'])
    .execute();
  await db.schema.createIndex('sending_numbers_number_key').unique().on('sending_numbers').column('number').execute();
  await db.schema.alterTable('leads').addColumn('sms_sending_number_id', 'text').execute();
  await db.schema.alterTable('leads').addColumn('voice_sending_number_id', 'text').execute();
  await db.schema.alterTable('messages').addColumn('segments', 'integer').execute();
  await db.schema.alterTable('messages').addColumn('sending_number_id', 'text').execute();
  await db.schema.alterTable('messages').addColumn('paced_until', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['segments', 'sending_number_id', 'paced_until'])
    await db.schema.alterTable('messages').dropColumn(column).execute();
  for (const column of ['sms_sending_number_id', 'voice_sending_number_id'])
    await db.schema.alterTable('leads').dropColumn(column).execute();
  await db.schema.dropTable('sending_numbers').execute();
}
