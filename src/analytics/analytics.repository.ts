import { sql, type ExpressionBuilder } from 'kysely';
import type { AnalyticsLatencyTable, Database, Db } from '../platform/db/schema.js';

export type LatencyDim = AnalyticsLatencyTable['dim'];

export interface CounterRow {
  key: string;
  leads: number;
  contacted: number;
  delivered: number;
  replied: number;
  hot: number;
  qualified: number;
  booked: number;
  opted_out: number;
  failed: number;
}

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

/**
 * A slice of a report's range: whole months (their month rows) or one run of
 * days (day rows). Each slice is its own statement, a range of the primary
 * key: an OR of both in one statement made SQLite walk the dimension's every row.
 */
export type Slice = { months: readonly string[] } | { from: string; to: string };

const periods = (slice: Slice) => (eb: ExpressionBuilder<Database, 'analytics_rollups'>) =>
  'months' in slice
    ? eb('period', 'in', [...slice.months])
    : eb.and([eb('period', '>=', slice.from), eb('period', '<=', slice.to), eb(sql`length(period)`, '=', 10)]);

/** Funnel counters of one report dimension per group: whole months from month rows, the days around them from day rows. */
export async function sumCounters(
  db: Db,
  organizationId: string,
  dim: LatencyDim,
  slice: Slice,
): Promise<CounterRow[]> {
  const group = dim === 'day' ? 'period' : 'value';
  const rows = await db
    .selectFrom('analytics_rollups')
    .select(sql.ref<string>(group).as('key'))
    .select(COUNTERS.map((c) => sql<number | string>`sum(${sql.ref(c)})`.as(c)))
    .where('organization_id', '=', organizationId)
    .where('dim', '=', dim)
    .where(periods(slice) as never)
    .groupBy(group)
    .execute();
  return rows.map((r) => {
    const out = { key: r.key } as CounterRow;
    for (const c of COUNTERS) out[c] = Number((r as Record<string, unknown>)[c] ?? 0);
    return out;
  });
}

/** Speed-to-lead percentiles of one group and kind, read from its histogram by the database. */
export interface LatencyRow {
  key: string;
  kind: 'sent' | 'delivered';
  count: number;
  p50: number | null;
  p90: number | null;
  p95: number | null;
}

/** The histogram rows of one slice (a union member: each slice keeps its own range of the primary key). */
function latencySlice(db: Db, organizationId: string, dim: LatencyDim, slice: Slice) {
  return db
    .selectFrom('analytics_latency')
    .select(['period', 'value', 'kind', 'bucket', 'count'])
    .where('organization_id', '=', organizationId)
    .where('dim', '=', dim)
    .where(periods(slice) as never);
}

/**
 * Speed to lead of one report dimension per group (`by`: the day, or the
 * dimension's value) and kind, as nearest-rank percentiles (latency.ts's
 * `percentiles`, the same rule) computed in the database: the slices' buckets
 * are added up per group, a running sum over the buckets in order finds the
 * first bucket whose running count reaches p of the group's count. Integer
 * arithmetic (`cum * 20 >= count * 19` is `cum >= ceil(0.95 count)` for an
 * integer `cum`), so the answer is the one the histogram gives, not an
 * approximation of it; a report gets two rows per group, not the thousands of
 * buckets behind them.
 */
export async function latencyPercentiles(
  db: Db,
  organizationId: string,
  dim: LatencyDim,
  by: 'period' | 'value',
  slices: readonly Slice[],
): Promise<LatencyRow[]> {
  if (slices.length === 0) return [];
  let rows = latencySlice(db, organizationId, dim, slices[0]!);
  for (const s of slices.slice(1)) rows = rows.unionAll(latencySlice(db, organizationId, dim, s));
  const { rows: out } = await sql<{
    key: string;
    kind: 'sent' | 'delivered';
    count: number | string;
    p50: number | string | null;
    p90: number | string | null;
    p95: number | string | null;
  }>`with h as (
      select ${sql.ref(by)} as key, kind, bucket, sum(count) as n from (${rows}) s group by ${sql.ref(by)}, kind, bucket
    ), c as (
      select key, kind, bucket,
        sum(n) over (partition by key, kind order by bucket rows between unbounded preceding and current row) as cum,
        sum(n) over (partition by key, kind) as total
      from h
    )
    select key, kind, max(total) as count,
      min(case when cum * 2 >= total then bucket end) as p50,
      min(case when cum * 10 >= total * 9 then bucket end) as p90,
      min(case when cum * 20 >= total * 19 then bucket end) as p95
    from c where total > 0 group by key, kind`.execute(db);
  const num = (v: number | string | null) => (v === null ? null : Number(v));
  return out.map((r) => ({
    key: r.key,
    kind: r.kind,
    count: Number(r.count),
    p50: num(r.p50),
    p90: num(r.p90),
    p95: num(r.p95),
  }));
}

export interface NumberRow {
  sending_number_id: string;
  sent: number;
  delivered: number;
  failed: number;
}

export async function sumNumbers(db: Db, organizationId: string, slice: Slice): Promise<NumberRow[]> {
  const rows = await db
    .selectFrom('analytics_numbers')
    .select([
      'sending_number_id',
      sql<number | string>`sum(sent)`.as('sent'),
      sql<number | string>`sum(delivered)`.as('delivered'),
      sql<number | string>`sum(failed)`.as('failed'),
    ])
    .where('organization_id', '=', organizationId)
    .where(periods(slice) as never)
    .groupBy('sending_number_id')
    .orderBy('sending_number_id')
    .execute();
  return rows.map((r) => ({
    sending_number_id: r.sending_number_id,
    sent: Number(r.sent),
    delivered: Number(r.delivered),
    failed: Number(r.failed),
  }));
}

export interface ErrorRow {
  sending_number_id: string;
  code: string;
  class: string | null;
  count: number;
}

export async function sumErrors(db: Db, organizationId: string, slice: Slice): Promise<ErrorRow[]> {
  const rows = await db
    .selectFrom('analytics_errors')
    .select([
      'sending_number_id',
      'code',
      sql<string | null>`max(class)`.as('class'),
      sql<number | string>`sum(count)`.as('count'),
    ])
    .where('organization_id', '=', organizationId)
    .where(periods(slice) as never)
    .groupBy(['sending_number_id', 'code'])
    .orderBy('sending_number_id')
    .orderBy('code')
    .execute();
  return rows.map((r) => ({
    sending_number_id: r.sending_number_id,
    code: r.code,
    class: r.class,
    count: Number(r.count),
  }));
}

/** The E.164 of the organization's pool numbers, by id. */
export async function numbersById(
  db: Db,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('sending_numbers')
    .select(['id', 'number'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, r.number]));
}

export interface VariantRow {
  variant: string;
  sent: number;
  replied: number;
  qualified: number;
  booked: number;
  opted_out: number;
}

/** Per opening variant of a profile: leads sent it, and of those how many replied, qualified, booked, opted out. */
export async function sumVariants(db: Db, organizationId: string, profile: string): Promise<VariantRow[]> {
  const rows = await db
    .selectFrom('analytics_leads')
    .select([
      'variant',
      sql<number | string>`count(*)`.as('sent'),
      sql<number | string>`count(replied_at)`.as('replied'),
      sql<number | string>`count(qualified_at)`.as('qualified'),
      sql<number | string>`count(booked_at)`.as('booked'),
      sql<number | string>`count(opted_out_at)`.as('opted_out'),
    ])
    .where('organization_id', '=', organizationId)
    .where('variant_profile', '=', profile)
    .where('variant', 'is not', null)
    .groupBy('variant')
    .orderBy('variant')
    .execute();
  return rows.map((r) => ({
    variant: r.variant!,
    sent: Number(r.sent),
    replied: Number(r.replied),
    qualified: Number(r.qualified),
    booked: Number(r.booked),
    opted_out: Number(r.opted_out),
  }));
}
