import { sql, type ColumnDefinitionBuilder as Col, type Kysely } from 'kysely';

// Analytics (src/analytics/, docs/analytics.md): counters kept as rollups, written in the
// transaction that changes the state, so a report reads a few hundred rows, never the messages.
// - analytics_leads: one row per lead, the facts the funnel counts once per lead (first send
//   accepted, first delivery, first reply, first hot, qualified, booked, opt-out), the dimensions
//   it is counted under (profile, source; campaign and number of its first contact) and the
//   opening variant it was sent (A/B tests). A first time is a conditional update `... is null`:
//   a repeated callback or a re-run counts nothing.
// - analytics_rollups: the funnel counters per report dimension (dim: day, profile, campaign,
//   sendingNumber, source; value: the group, '' for none and for dim day) and period (the UTC day
//   of the event, 'YYYY-MM-DD', and except for dim day its month, 'YYYY-MM'). One row per group a
//   report shows, so a year's report by campaign reads twelve months of rows plus at most two
//   partial months of days. (A table keyed by every dimension at once held about one row per
//   lead at 1M leads: too many to add up per request.)
// - analytics_latency: speed to lead as histograms (kind 'sent' | 'delivered'), one per report
//   dimension (dim: day, profile, campaign, sendingNumber, source; value: the group, '' for day),
//   per UTC day and, except for dim day, per UTC month too (period 'YYYY-MM-DD' or 'YYYY-MM'),
//   so a year's report reads months and at most two partial months of days. bucket: the
//   latency's geometric bucket (src/analytics-records/latency.ts), so a percentile is exact or at most
//   5 % low. Only the dimension asked is read; a lead's buckets are not multiplied by the others.
// - analytics_numbers / analytics_errors: deliverability per (organization, period, sending number),
//   and failures per error code (class: null until a classifier names it); period as above (a day
//   row and a month row per event).
// - messages.analytics_counted: bits of the transitions already counted (1 sent, 2 delivered,
//   4 failed); messages.opening_variant: the opening variant a message was written from.
// - customer_profiles.opening_variants: JSON [{name, text, weight}] or null.
const KEY = ['organization_id', 'dim', 'period', 'value'] as const;
const COUNTERS = [
  'leads',
  'contacted',
  'delivered',
  'replied',
  'hot',
  'qualified',
  'booked',
  'opted_out',
  'failed',
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analytics_leads')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('profile', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('sending_number_id', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('first_sent_at', 'text')
    .addColumn('first_delivered_at', 'text')
    .addColumn('replied_at', 'text')
    .addColumn('hot_at', 'text')
    .addColumn('qualified_at', 'text')
    .addColumn('booked_at', 'text')
    .addColumn('opted_out_at', 'text')
    .addColumn('variant_profile', 'text')
    .addColumn('variant', 'text')
    .addPrimaryKeyConstraint('analytics_leads_pk', ['organization_id', 'lead_id'])
    .execute();
  await db.schema
    .createIndex('analytics_leads_variant_idx')
    .on('analytics_leads')
    .columns(['organization_id', 'variant_profile', 'variant'])
    .execute();

  let rollups: any = db.schema.createTable('analytics_rollups');
  for (const k of KEY) rollups = rollups.addColumn(k, 'text', (c: Col) => c.notNull());
  for (const c of COUNTERS) rollups = rollups.addColumn(c, 'integer', (col: Col) => col.notNull().defaultTo(0));
  await rollups.addPrimaryKeyConstraint('analytics_rollups_pk', [...KEY]).execute();

  await db.schema
    .createTable('analytics_latency')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('bucket', 'bigint', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('analytics_latency_pk', ['organization_id', 'dim', 'period', 'value', 'kind', 'bucket'])
    .execute();

  await db.schema
    .createTable('analytics_numbers')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('sending_number_id', 'text', (c) => c.notNull())
    .addColumn('sent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('analytics_numbers_pk', ['organization_id', 'period', 'sending_number_id'])
    .execute();

  await db.schema
    .createTable('analytics_errors')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('sending_number_id', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('class', 'text')
    .addColumn('count', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('analytics_errors_pk', ['organization_id', 'period', 'sending_number_id', 'code'])
    .execute();

  await db.schema
    .alterTable('messages')
    .addColumn('analytics_counted', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('messages').addColumn('opening_variant', 'text').execute();
  await db.schema.alterTable('customer_profiles').addColumn('opening_variants', 'text').execute();

  // Leads from before: their row (source 'unknown') and their creation counted; the funnel counts from now on.
  await sql`insert into analytics_leads (organization_id, lead_id, created_at, profile, source)
    select organization_id, id, created_at, customer_profile, 'unknown' from leads`.execute(db);
  await sql`insert into analytics_rollups (organization_id, dim, period, value, leads)
    select organization_id, 'day', substr(created_at, 1, 10), '', count(*) from leads group by organization_id, substr(created_at, 1, 10)`.execute(
    db,
  );
  for (const [dim, value] of [
    ['profile', 'customer_profile'],
    ['campaign', "''"],
    ['sendingNumber', "''"],
    ['source', "'unknown'"],
  ] as const) {
    for (const period of ['substr(created_at, 1, 10)', 'substr(created_at, 1, 7)']) {
      await sql`insert into analytics_rollups (organization_id, dim, period, value, leads)
        select organization_id, ${sql.lit(dim)}, ${sql.raw(period)}, ${sql.raw(value)}, count(*) from leads
        group by organization_id, ${sql.raw(period)}${sql.raw(value === 'customer_profile' ? ', customer_profile' : '')}`.execute(
        db,
      );
    }
  }
  // Sends already out count as counted: a late callback of an old message is not a new transition.
  await sql`update messages set analytics_counted = 7 where direction = 'outbound' and status in ('sent', 'delivered', 'undelivered', 'failed')`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('customer_profiles').dropColumn('opening_variants').execute();
  await db.schema.alterTable('messages').dropColumn('opening_variant').execute();
  await db.schema.alterTable('messages').dropColumn('analytics_counted').execute();
  for (const t of [
    'analytics_errors',
    'analytics_numbers',
    'analytics_latency',
    'analytics_rollups',
    'analytics_leads',
  ])
    await db.schema.dropTable(t).execute();
}
