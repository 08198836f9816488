import { sql, type Kysely } from 'kysely';

// Two changes to the analytics rollups (docs/analytics.md).
//
// The openings A/B report from a rollup (src/analytics-records/recorder.repository.ts, docs/analytics.md):
// GET /v1/analytics/openings counted the rows of analytics_leads (one per lead) on every request, so its
// cost grew with the organization's leads. analytics_variants holds, per profile and opening variant, the
// leads first sent that variant and how many of them replied, qualified, booked and opted out, added by
// the fold like the other rollups. Backfilled here from analytics_leads, which held exactly that; the
// index the report read analytics_leads by goes.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analytics_variants')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('profile', 'text', (c) => c.notNull())
    .addColumn('variant', 'text', (c) => c.notNull())
    .addColumn('sent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('replied', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('qualified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('booked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('opted_out', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('analytics_variants_pk', ['organization_id', 'profile', 'variant'])
    .execute();
  await sql`insert into analytics_variants (organization_id, profile, variant, sent, replied, qualified, booked, opted_out)
    select organization_id, variant_profile, variant, count(*), count(replied_at), count(qualified_at),
      count(booked_at), count(opted_out_at)
    from analytics_leads where variant is not null and variant_profile is not null
    group by organization_id, variant_profile, variant`.execute(db);
  // Its only reader was the openings report: no longer worth a write per variant assignment.
  await db.schema.dropIndex('analytics_leads_variant_idx').execute();
  await quarterRows(db);
}

/** A month's period (`2026-05`), not a quarter's (`2026-Q2`, the same length). */
const MONTH = sql`length(period) = 7 and substr(period, 6, 1) <> 'Q'`;
/** The quarter of a month's period, `YYYY-Qn`. */
const QUARTER = sql`substr(period, 1, 5) || 'Q' || cast((cast(substr(period, 6, 2) as integer) + 2) / 3 as text)`;

/**
 * Quarter rows (`2026-Q2`) beside the month rows of every rollup: each is the sum of its months' rows, as
 * the recorder now writes them (cells, periodsOf), so a report reads a whole quarter as one period
 * (analytics.service.ts foldQuarters): a year reads four quarters' rows instead of twelve months' of them.
 */
async function quarterRows(db: Kysely<any>): Promise<void> {
  await sql`insert into analytics_rollups (organization_id, dim, period, value, leads, contacted, delivered, replied,
      hot, qualified, booked, opted_out, failed)
    select organization_id, dim, ${QUARTER}, value, sum(leads), sum(contacted), sum(delivered), sum(replied),
      sum(hot), sum(qualified), sum(booked), sum(opted_out), sum(failed)
    from analytics_rollups where ${MONTH} group by organization_id, dim, ${QUARTER}, value`.execute(db);
  await sql`insert into analytics_latency (organization_id, dim, period, value, kind, bucket, count)
    select organization_id, dim, ${QUARTER}, value, kind, bucket, sum(count)
    from analytics_latency where ${MONTH} group by organization_id, dim, ${QUARTER}, value, kind, bucket`.execute(db);
  await sql`insert into analytics_numbers (organization_id, period, sending_number_id, sent, delivered, failed)
    select organization_id, ${QUARTER}, sending_number_id, sum(sent), sum(delivered), sum(failed)
    from analytics_numbers where ${MONTH} group by organization_id, ${QUARTER}, sending_number_id`.execute(db);
  await sql`insert into analytics_errors (organization_id, period, sending_number_id, code, class, count)
    select organization_id, ${QUARTER}, sending_number_id, code, max(class), sum(count)
    from analytics_errors where ${MONTH} group by organization_id, ${QUARTER}, sending_number_id, code`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['analytics_rollups', 'analytics_latency', 'analytics_numbers', 'analytics_errors'])
    await sql`delete from ${sql.table(table)} where length(period) = 7 and substr(period, 6, 1) = 'Q'`.execute(db);
  await db.schema
    .createIndex('analytics_leads_variant_idx')
    .on('analytics_leads')
    .columns(['organization_id', 'variant_profile', 'variant'])
    .execute();
  await db.schema.dropTable('analytics_variants').execute();
}
