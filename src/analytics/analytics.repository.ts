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

export interface LatencyRow {
  key: string;
  kind: 'sent' | 'delivered';
  bucket: number;
  count: number;
}

/**
 * Speed-to-lead histogram of one report dimension, per group value, kind and
 * bucket: whole months from the month rows, the days around them from the
 * day rows (dim `day` has day rows only, its group is the day itself).
 */
export async function sumLatency(db: Db, organizationId: string, dim: LatencyDim, slice: Slice): Promise<LatencyRow[]> {
  const key = dim === 'day' ? sql.ref<string>('period') : sql.ref<string>('value');
  const rows = await db
    .selectFrom('analytics_latency')
    .select([key.as('key'), 'kind', 'bucket', sql<number | string>`sum(count)`.as('count')])
    .where('organization_id', '=', organizationId)
    .where('dim', '=', dim)
    .where(periods(slice) as never)
    .groupBy([dim === 'day' ? 'period' : 'value', 'kind', 'bucket'])
    .execute();
  return rows.map((r) => ({ key: r.key, kind: r.kind, bucket: Number(r.bucket), count: Number(r.count) }));
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
