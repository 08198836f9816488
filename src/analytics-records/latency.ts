import type { AnalyticsLatencyTable } from '../platform/db/schema.js';

/**
 * Speed to lead as a histogram (docs/analytics.md). A latency below 100 ms is
 * kept exactly; above, it falls in a geometric bucket 5 % wide and is stored as
 * the bucket's lower bound (whole milliseconds). A percentile read from the
 * buckets is therefore exact below 100 ms and otherwise at most 5 % low (the
 * bound the tests hold it to), whatever the number of leads; a group holds at
 * most ~48 buckets per decade of latency, so a report adds a few thousand rows.
 */
const RATIO = Math.log(1.05);
export function latencyBucket(ms: number): number {
  const v = Math.max(0, Math.floor(ms));
  if (v < 100) return v;
  const lower = Math.floor(Math.exp(Math.floor(Math.log(v) / RATIO) * RATIO));
  return Math.min(v, Math.max(100, lower));
}

export interface Percentiles {
  count: number;
  p50: number | null;
  p90: number | null;
  p95: number | null;
}

/** Nearest-rank percentiles (the smallest value with at least p of the values at or below it) of a bucket histogram. */
export function percentiles(histogram: ReadonlyMap<number, number>): Percentiles {
  const buckets = [...histogram.entries()].filter(([, n]) => n > 0).sort((a, b) => a[0] - b[0]);
  const count = buckets.reduce((s, [, n]) => s + n, 0);
  const at = (p: number): number | null => {
    if (count === 0) return null;
    const rank = Math.ceil(p * count);
    let seen = 0;
    for (const [bucket, n] of buckets) {
      seen += n;
      if (seen >= rank) return bucket;
    }
    // biome-ignore lint/style/noNonNullAssertion: count > 0 here, so buckets has at least one entry
    return buckets[buckets.length - 1]![0];
  };
  return { count, p50: at(0.5), p90: at(0.9), p95: at(0.95) };
}

/** Twilio-style numeric error code in a status reason ("Twilio error 30007", "refused by the provider: ... 21610"), or '' when none. */
export function errorCodeOf(reason: string | null): string {
  const m = /\b(\d{5})\b/.exec(reason ?? '');
  return m?.[1] ?? '';
}

export type LatencyDim = AnalyticsLatencyTable['dim'];

/** Speed-to-lead percentiles of one group and kind, read from its histogram by the database. */
export interface LatencyRow {
  key: string;
  kind: 'sent' | 'delivered';
  count: number;
  p50: number | null;
  p90: number | null;
  p95: number | null;
}

/** A percentile as the database answers it (PostgreSQL's bigint is a string), as a number; null stays null. */
export const percentileOf = (v: number | string | null): number | null => (v === null ? null : Number(v));
