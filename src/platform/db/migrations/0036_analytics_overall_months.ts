import { sql, type Kysely } from 'kysely';

// Analytics (src/analytics/, docs/analytics.md): the overall rows (dim 'day') get a month row too,
// like every other dimension, so a report's whole-range speed to lead reads twelve month
// histograms for a year instead of adding up 365 daily ones. The recorder writes both from now
// on (one more row in the same upsert); the months so far are the sums of their days, exactly
// (a month row already there, written by the recorder of this version, is left as it is).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`insert into analytics_rollups
      (organization_id, dim, period, value, leads, contacted, delivered, replied, hot, qualified, booked, opted_out, failed)
    select organization_id, 'day', substr(period, 1, 7), '', sum(leads), sum(contacted), sum(delivered), sum(replied),
      sum(hot), sum(qualified), sum(booked), sum(opted_out), sum(failed)
    from analytics_rollups where dim = 'day' and length(period) = 10
    group by organization_id, substr(period, 1, 7)
    on conflict do nothing`.execute(db);
  await sql`insert into analytics_latency (organization_id, dim, period, value, kind, bucket, count)
    select organization_id, 'day', substr(period, 1, 7), '', kind, bucket, sum(count)
    from analytics_latency where dim = 'day' and length(period) = 10
    group by organization_id, substr(period, 1, 7), kind, bucket
    on conflict do nothing`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['analytics_rollups', 'analytics_latency'] as const)
    await sql`delete from ${sql.table(table)} where dim = 'day' and length(period) = 7`.execute(db);
}
