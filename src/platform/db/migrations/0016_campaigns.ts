import type { Kysely } from 'kysely';

// Campaigns (src/campaigns/, docs/campaigns.md): one customer profile's opening sent to a
// filtered snapshot of leads, paced by a daily cap.
// - campaigns: the campaign as asked (name, profile, filter as JSON text, start, daily cap)
//   and where it stands. `enrolling` is internal: the row exists while the snapshot is being
//   written in batches and is invisible to the API until every batch is in. `run_generation`
//   is raised by pause/resume/cancel: a campaign.run job made for an older one does nothing.
// - campaign_enrollments: one row per lead of the snapshot, keyed (organization, campaign,
//   lead), so a lead is enrolled once per campaign. `queued_day` is the organization's local
//   date on which its opening was handed to the send path: the daily cap counts those.
//   `message_id` / `opening_id`: the opening it became (template / composed by the agent).
// - messages.campaign_id, lead_openings.campaign_id: the campaign a message or an opening
//   belongs to (message.sent carries it; a reply blocks the lead's still-queued ones).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('campaigns')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('customer_profile', 'text', (c) => c.notNull())
    .addColumn('filter', 'text', (c) => c.notNull())
    .addColumn('start_at', 'text', (c) => c.notNull())
    .addColumn('daily_cap', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('run_generation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addColumn('cancelled_at', 'text')
    .addPrimaryKeyConstraint('campaigns_pk', ['organization_id', 'id'])
    .execute();

  await db.schema
    .createTable('campaign_enrollments')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason_code', 'text')
    .addColumn('reason', 'text')
    .addColumn('message_id', 'text')
    .addColumn('opening_id', 'text')
    .addColumn('queued_day', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('campaign_enrollments_pk', ['organization_id', 'campaign_id', 'lead_id'])
    .execute();
  // The run takes the next pending ones in lead order; the cap counts one day's.
  await db.schema
    .createIndex('campaign_enrollments_status_idx')
    .on('campaign_enrollments')
    .columns(['organization_id', 'campaign_id', 'status', 'lead_id'])
    .execute();
  await db.schema
    .createIndex('campaign_enrollments_day_idx')
    .on('campaign_enrollments')
    .columns(['organization_id', 'campaign_id', 'queued_day'])
    .execute();
  // A reply or an opt-out finds the lead's enrollments in every campaign.
  await db.schema
    .createIndex('campaign_enrollments_lead_idx')
    .on('campaign_enrollments')
    .columns(['organization_id', 'lead_id', 'status'])
    .execute();

  await db.schema.alterTable('messages').addColumn('campaign_id', 'text').execute();
  await db.schema.alterTable('lead_openings').addColumn('campaign_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('lead_openings').dropColumn('campaign_id').execute();
  await db.schema.alterTable('messages').dropColumn('campaign_id').execute();
  await db.schema.dropTable('campaign_enrollments').execute();
  await db.schema.dropTable('campaigns').execute();
}
