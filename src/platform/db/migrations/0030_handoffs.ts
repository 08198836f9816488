import { sql, type Kysely } from 'kysely';

// Hot leads that reach a person (src/handoffs/, docs/handoffs.md):
// - users as sales reps: phone (E.164, the rep's own: alerts go there, never through a lead's
//   conversation), capacity (open hand-offs at once; null: no limit), working hours (JSON
//   {days, start, end}; null: any time) read in time_zone, and is_away (the away switch).
// - leads.owner_id: the user who owns the lead; null when nobody does.
// - customer_profiles.notifications: JSON [{name, condition}], plain-English conditions the agent judges.
// - handoffs: one row per hand-off of a lead to a person: who holds it, when it was raised, when it was
//   acknowledged and by whom, when a person first touched the lead (reply, call or acknowledgement),
//   how far it escalated, and its status (open, acknowledged, closed).
// - handoff_alerts: the parts of alerts that went out, so a retried alert sends only what did not.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('phone', 'text').execute();
  await db.schema.alterTable('users').addColumn('capacity', 'integer').execute();
  await db.schema.alterTable('users').addColumn('working_hours', 'text').execute();
  await db.schema.alterTable('users').addColumn('time_zone', 'text').execute();
  await db.schema
    .alterTable('users')
    .addColumn('is_away', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('leads').addColumn('owner_id', 'text').execute();
  // Partial: only owned leads are found by owner, and an index of every lead by organization would tempt the
  // planner away from the listing's own indexes (the email prefix range) on small tables.
  await db.schema
    .createIndex('leads_owner_idx')
    .on('leads')
    .columns(['organization_id', 'owner_id'])
    .where(sql.ref('owner_id'), 'is not', null)
    .execute();
  await db.schema.alterTable('customer_profiles').addColumn('notifications', 'text').execute();

  await db.schema
    .createTable('handoffs')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text')
    .addColumn('raised_at', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('acknowledged_at', 'text')
    .addColumn('acknowledged_by', 'text')
    .addColumn('first_touch_at', 'text')
    .addColumn('first_touch_kind', 'text')
    .addColumn('escalation_level', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('handoffs_pk', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('handoffs_lead_idx')
    .on('handoffs')
    .columns(['organization_id', 'lead_id', 'status'])
    .execute();
  await db.schema
    .createIndex('handoffs_owner_idx')
    .on('handoffs')
    .columns(['organization_id', 'owner_id', 'status'])
    .execute();
  // Each part of an alert that went out (one recipient, one channel): a retried alert job sends only the rest.
  await db.schema
    .createTable('handoff_alerts')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('handoff_alerts_pk', ['organization_id', 'key'])
    .execute();
  await db.schema.createIndex('handoffs_raised_idx').on('handoffs').columns(['organization_id', 'raised_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('handoff_alerts').execute();
  await db.schema.dropTable('handoffs').execute();
  await db.schema.alterTable('customer_profiles').dropColumn('notifications').execute();
  await db.schema.dropIndex('leads_owner_idx').execute();
  await db.schema.alterTable('leads').dropColumn('owner_id').execute();
  for (const c of ['is_away', 'time_zone', 'working_hours', 'capacity', 'phone'])
    await db.schema.alterTable('users').dropColumn(c).execute();
}
