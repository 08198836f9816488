import { sql, type Kysely } from 'kysely';

// Appointments (src/appointments/, docs/appointments.md).
//
// appointments: one meeting of a lead with an owner (a console user, or null: the
// organization's own calendar), on the embedded calendar or Cal.com. `booking_key`
// makes a booking idempotent: the agent's is `<turn id>:<step>:<call>`, so an
// ai.turn job that runs twice books once.
//
// appointment_slots: the owner's calendar in 15-minute blocks. A booked appointment
// holds a row for each block it covers; the primary key (organization, owner, block)
// makes a second booking of any of those blocks fail on both dialects, whatever the
// concurrency: the insert that loses answers 409. Cancelling frees the rows.
//
// appointment_reminders: the reminders due before an appointment, each a send through
// the gate when its time comes (job 'appointment.remind').
//
// user_availability: a user's weekly hours and zone for the embedded calendar.
//
// agent_turns.steps: the agent's loop, step by step (tools called, results); leads.is_booked.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('appointments')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('owner_user_id', 'text')
    .addColumn('start_at', 'text', (c) => c.notNull())
    .addColumn('end_at', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('notes', 'text')
    .addColumn('created_by_turn_id', 'text')
    .addColumn('booking_key', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('appointments_pk', ['organization_id', 'id'])
    .addUniqueConstraint('appointments_booking_key_uq', ['organization_id', 'booking_key'])
    .execute();
  await db.schema
    .createIndex('appointments_lead_idx')
    .on('appointments')
    .columns(['organization_id', 'lead_id', 'start_at'])
    .execute();
  // The lead's timeline reads appointments by (updated_at, id), like its other sources (0011).
  await db.schema
    .createIndex('appointments_lead_updated_idx')
    .on('appointments')
    .columns(['organization_id', 'lead_id', 'updated_at', 'id'])
    .execute();
  await db.schema
    .createIndex('appointments_start_idx')
    .on('appointments')
    .columns(['organization_id', 'start_at'])
    .execute();

  await db.schema
    .createTable('appointment_slots')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('owner_key', 'text', (c) => c.notNull())
    .addColumn('block_start', 'text', (c) => c.notNull())
    .addColumn('appointment_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('appointment_slots_pk', ['organization_id', 'owner_key', 'block_start'])
    .execute();
  await db.schema
    .createIndex('appointment_slots_appointment_idx')
    .on('appointment_slots')
    .columns(['organization_id', 'appointment_id'])
    .execute();

  await db.schema
    .createTable('appointment_reminders')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('appointment_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('due_at', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('appointment_reminders_pk', ['organization_id', 'id'])
    .addUniqueConstraint('appointment_reminders_uq', ['organization_id', 'appointment_id', 'kind', 'due_at'])
    .execute();

  await db.schema
    .createTable('user_availability')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text', (c) => c.notNull())
    .addColumn('weekly_hours', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('user_availability_pk', ['organization_id', 'user_id'])
    .execute();

  await db.schema.alterTable('agent_turns').addColumn('steps', 'text').execute();
  await db.schema
    .alterTable('leads')
    .addColumn('is_booked', 'integer', (c) => c.notNull().defaultTo(sql`0`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('leads').dropColumn('is_booked').execute();
  await db.schema.alterTable('agent_turns').dropColumn('steps').execute();
  await db.schema.dropTable('user_availability').execute();
  await db.schema.dropTable('appointment_reminders').execute();
  await db.schema.dropTable('appointment_slots').execute();
  await db.schema.dropTable('appointments').execute();
}
