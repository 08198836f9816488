import { sql, type Kysely } from 'kysely';

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
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('analytics_leads_variant_idx')
    .on('analytics_leads')
    .columns(['organization_id', 'variant_profile', 'variant'])
    .execute();
  await db.schema.dropTable('analytics_variants').execute();
}
