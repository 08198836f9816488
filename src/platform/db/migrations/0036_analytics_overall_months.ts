import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../connect.js';

// Analytics (src/analytics/, docs/analytics.md):
// - The overall rows (dim 'day') get a month row too, like every other dimension, so a report's
//   whole-range speed to lead reads twelve month histograms for a year instead of adding up 365
//   daily ones. The recorder writes both from now on (one more row in the same upsert); the
//   months so far are the sums of their days, exactly.
// - On SQLite the two tables a report reads most (analytics_rollups, analytics_latency) become
//   WITHOUT ROWID: the rows are stored in their primary key's order, so a report's range of the
//   key is read as consecutive pages, not one table lookup per index entry (a year by day reads
//   some 90k histogram rows). On PostgreSQL the histogram's primary key carries `count`
//   (INCLUDE), so the same read is an index-only scan: the heap holds a day's rows of every
//   dimension side by side (written as the day's events came), and a year by day fetched
//   some 7,000 heap pages for its 90k rows.
const ROLLUP_COUNTERS = 'leads, contacted, delivered, replied, hot, qualified, booked, opted_out, failed';

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'sqlite') await clusterOnSqlite(db);
  else
    await sql`alter table analytics_latency drop constraint analytics_latency_pk,
      add constraint analytics_latency_pk primary key (organization_id, dim, period, value, kind, bucket) include (count)`.execute(
      db,
    );
  await sql`insert into analytics_rollups (organization_id, dim, period, value, ${sql.raw(ROLLUP_COUNTERS)})
    select organization_id, 'day', substr(period, 1, 7), '', sum(leads), sum(contacted), sum(delivered), sum(replied),
      sum(hot), sum(qualified), sum(booked), sum(opted_out), sum(failed)
    from analytics_rollups where dim = 'day' and length(period) = 10
    group by organization_id, substr(period, 1, 7)`.execute(db);
  await sql`insert into analytics_latency (organization_id, dim, period, value, kind, bucket, count)
    select organization_id, 'day', substr(period, 1, 7), '', kind, bucket, sum(count)
    from analytics_latency where dim = 'day' and length(period) = 10
    group by organization_id, substr(period, 1, 7), kind, bucket`.execute(db);
}

async function clusterOnSqlite(db: Kysely<any>): Promise<void> {
  const counters = ROLLUP_COUNTERS.split(', ')
    .map((c) => `${c} integer not null default 0`)
    .join(', ');
  await sql
    .raw(`create table analytics_rollups_new (organization_id text not null, dim text not null,
    period text not null, value text not null, ${counters},
    constraint analytics_rollups_pk primary key (organization_id, dim, period, value)) without rowid`)
    .execute(db);
  await sql
    .raw(`insert into analytics_rollups_new (organization_id, dim, period, value, ${ROLLUP_COUNTERS})
    select organization_id, dim, period, value, ${ROLLUP_COUNTERS} from analytics_rollups`)
    .execute(db);
  await sql.raw('drop table analytics_rollups').execute(db);
  await sql.raw('alter table analytics_rollups_new rename to analytics_rollups').execute(db);
  await sql
    .raw(`create table analytics_latency_new (organization_id text not null, dim text not null,
    period text not null, value text not null, kind text not null, bucket bigint not null,
    count integer not null default 0,
    constraint analytics_latency_pk primary key (organization_id, dim, period, value, kind, bucket)) without rowid`)
    .execute(db);
  await sql
    .raw(`insert into analytics_latency_new (organization_id, dim, period, value, kind, bucket, count)
    select organization_id, dim, period, value, kind, bucket, count from analytics_latency`)
    .execute(db);
  await sql.raw('drop table analytics_latency').execute(db);
  await sql.raw('alter table analytics_latency_new rename to analytics_latency').execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['analytics_rollups', 'analytics_latency'] as const)
    await sql`delete from ${sql.table(table)} where dim = 'day' and length(period) = 7`.execute(db);
}
