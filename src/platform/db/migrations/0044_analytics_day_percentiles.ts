import type { Kysely } from 'kysely';

// Speed to lead by day, remembered (src/analytics/day-percentiles.repository.ts, docs/analytics.md):
// a year's report by day computed 730 percentile groups from some 90k histogram rows on every
// request, though a past day's histogram no longer changes.
// - analytics_day_versions: per organization and day, how many folds have changed that day's
//   histograms (no row: none since this table was made).
// - analytics_day_percentiles: one day's percentiles per dimension, group and kind, with the
//   version of the day they were computed at; a row whose version is not the day's is stale.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analytics_day_versions')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_day_versions_pk', ['organization_id', 'period'])
    .execute();
  await db.schema
    .createTable('analytics_day_percentiles')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('count', 'bigint', (c) => c.notNull())
    .addColumn('p50', 'bigint')
    .addColumn('p90', 'bigint')
    .addColumn('p95', 'bigint')
    .addPrimaryKeyConstraint('analytics_day_percentiles_pk', ['organization_id', 'dim', 'period', 'value', 'kind'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('analytics_day_percentiles').execute();
  await db.schema.dropTable('analytics_day_versions').execute();
}
