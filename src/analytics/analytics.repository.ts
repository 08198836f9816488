import { sql, type ExpressionBuilder } from 'kysely';
import { runsInProcess } from '../platform/db/capabilities.js';
import type { Database, Db } from '../platform/db/schema.js';
import { rememberedDays } from './day-percentiles.repository.js';
import { percentileOf, percentiles, type LatencyDim, type LatencyRow } from '../analytics-records/latency.js';

export type { LatencyRow } from '../analytics-records/latency.js';

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
 * `percentiles`, the same rule). On PostgreSQL the database computes them:
 * the slices' buckets added up per group, a running sum over the buckets in
 * order finds the first bucket whose running count reaches p of the group's
 * count, with integer arithmetic (`cum * 20 >= count * 19` is
 * `cum >= ceil(0.95 count)` for an integer `cum`), so a report gets two rows
 * per group over the wire, not the thousands of buckets behind them. SQLite
 * runs in the process, where a row costs no round trip but its window
 * functions sort through temporary B-trees (a year by day took three times
 * as long as reading the rows): there the rows are read in the primary key's
 * order, with no GROUP BY, and added up here.
 */
export async function latencyPercentiles(
  db: Db,
  organizationId: string,
  dim: LatencyDim,
  by: 'period' | 'value',
  slices: readonly Slice[],
): Promise<LatencyRow[]> {
  if (slices.length === 0) return [];
  const only = slices.length === 1 ? slices[0] : undefined;
  // By day over one run of days: each day's percentiles are remembered until a fold changes the day.
  if (by === 'period' && only && 'from' in only)
    return rememberedDays(db, organizationId, dim, only.from, only.to, (runs) =>
      computePercentiles(db, organizationId, dim, by, runs),
    );
  return computePercentiles(db, organizationId, dim, by, slices);
}

async function computePercentiles(
  db: Db,
  organizationId: string,
  dim: LatencyDim,
  by: 'period' | 'value',
  slices: readonly Slice[],
): Promise<LatencyRow[]> {
  if (runsInProcess(db)) return percentilesHere(db, organizationId, dim, by, slices);
  // biome-ignore lint/style/noNonNullAssertion: computePercentiles is called only after slices.length === 0 returned early
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
  return out.map((r) => ({
    key: r.key,
    kind: r.kind,
    count: Number(r.count),
    p50: percentileOf(r.p50),
    p90: percentileOf(r.p90),
    p95: percentileOf(r.p95),
  }));
}

async function percentilesHere(
  db: Db,
  organizationId: string,
  dim: LatencyDim,
  by: 'period' | 'value',
  slices: readonly Slice[],
): Promise<LatencyRow[]> {
  const groups = new Map<string, Map<number, number>>();
  const out: LatencyRow[] = [];
  for (const slice of slices) {
    // By value, the slice's periods collapse into one histogram per group: added up by SQLite (shipping the
    // rows cost five times as much CPU: a year by number is 177k month rows, 20k once added up). By day, the
    // percentiles come from SQLite (daysHere): shipping a year's 90k day rows cost more than computing them there.
    const rows =
      by === 'value'
        ? await db
            .selectFrom('analytics_latency')
            .select(['value as key', 'kind', 'bucket', sql<number>`sum(count)`.as('count')])
            .where('organization_id', '=', organizationId)
            .where('dim', '=', dim)
            .where(periods(slice) as never)
            .groupBy(['value', 'kind', 'bucket'])
            .execute()
        : await daysHere(db, organizationId, dim, slice);
    if (by === 'period') {
      out.push(...(rows as LatencyRow[]));
      continue;
    }
    for (const r of rows as { key: string; kind: 'sent' | 'delivered'; bucket: number; count: number }[]) {
      const k = `${r.kind}\u0000${r.key}`;
      let h = groups.get(k);
      if (!h) groups.set(k, (h = new Map()));
      const b = Number(r.bucket);
      h.set(b, (h.get(b) ?? 0) + Number(r.count));
    }
  }
  for (const [k, h] of groups) {
    const [kind, key] = k.split('\u0000') as ['sent' | 'delivered', string];
    const p = percentiles(h);
    if (p.count > 0) out.push({ key, kind, ...p });
  }
  return out;
}

/**
 * Per day (each day's rows one group) on SQLite: one window, a running sum in
 * the primary key's order (no sort: the table is clustered on it, 0036), joined
 * to each day's total; the same integer ranks as on PostgreSQL.
 */
async function daysHere(db: Db, organizationId: string, dim: LatencyDim, slice: Slice): Promise<LatencyRow[]> {
  const where = sql`organization_id = ${organizationId} and dim = ${dim} and ${
    'months' in slice
      ? sql`period in (${sql.join(slice.months)})`
      : sql`period >= ${slice.from} and period <= ${slice.to} and length(period) = 10`
  }`;
  const { rows } = await sql<LatencyRow>`select w.period as key, w.kind as kind, t.total as count,
      min(case when w.cum * 2 >= t.total then w.bucket end) as p50,
      min(case when w.cum * 10 >= t.total * 9 then w.bucket end) as p90,
      min(case when w.cum * 20 >= t.total * 19 then w.bucket end) as p95
    from (
      select period, value, kind, bucket,
        sum(count) over (partition by period, value, kind order by bucket rows between unbounded preceding and current row) as cum
      from analytics_latency where ${where}
    ) w
    join (
      select period, value, kind, sum(count) as total from analytics_latency where ${where} group by period, value, kind
    ) t on t.period = w.period and t.value = w.value and t.kind = w.kind
    where t.total > 0
    group by w.period, w.value, w.kind`.execute(db);
  return rows;
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

/** One text column of the organization's rows of `table`, by id (an id with no row is absent). */
async function labelsById(
  db: Db,
  table: 'sending_numbers' | 'campaigns',
  column: 'number' | 'name',
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom(table)
    .select(['id', sql.ref<string>(column).as('label')])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, r.label]));
}

/** The E.164 of the organization's pool numbers, by id. */
export const numbersById = (db: Db, organizationId: string, ids: readonly string[]) =>
  labelsById(db, 'sending_numbers', 'number', organizationId, ids);

/** The names of the organization's campaigns, by id (a deleted campaign has none). */
export const campaignNamesById = (db: Db, organizationId: string, ids: readonly string[]) =>
  labelsById(db, 'campaigns', 'name', organizationId, ids);

export interface VariantRow {
  variant: string;
  sent: number;
  replied: number;
  qualified: number;
  booked: number;
  opted_out: number;
}

/**
 * Per opening variant of a profile: leads sent it, and of those how many replied, qualified, booked, opted
 * out. Read from the variants' rollup (0049), a row per variant, whatever the number of leads.
 */
export async function sumVariants(db: Db, organizationId: string, profile: string): Promise<VariantRow[]> {
  const rows = await db
    .selectFrom('analytics_variants')
    .select(['variant', 'sent', 'replied', 'qualified', 'booked', 'opted_out'])
    .where('organization_id', '=', organizationId)
    .where('profile', '=', profile)
    .orderBy('variant')
    .execute();
  return rows.map((r) => ({
    variant: r.variant,
    sent: Number(r.sent),
    replied: Number(r.replied),
    qualified: Number(r.qualified),
    booked: Number(r.booked),
    opted_out: Number(r.opted_out),
  }));
}
