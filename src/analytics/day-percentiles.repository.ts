import type { Db } from '../platform/db/schema.js';
import { percentileOf, type LatencyDim, type LatencyRow } from '../analytics-records/latency.js';

/** Rows per upsert (SQLite binds ten values a row). */
const CHUNK = 500;
/** More runs of days to compute than this, and the whole range is computed in one go instead. */
const MAX_RUNS = 60;

/** A run of consecutive days, `from` to `to` inclusive. */
export interface DayRun {
  from: string;
  to: string;
}

/**
 * Speed to lead by day, remembered. A report by day over a year computed 730
 * percentile groups from some 90k histogram rows on every request, though a
 * past day's histogram no longer changes. A day's percentiles are now kept
 * with the day's version (analytics_day_versions: every fold that changes
 * the day's histograms adds one, in its transaction) and reused while the
 * version is the same; the other days (never computed, or changed since)
 * are computed by `compute`, run by run of consecutive days, and kept. A day
 * without any latency is kept too, as a row with count 0, so a range of quiet
 * days is not looked at again until a fold gives one of them a version.
 *
 * The versions are read before the histograms, so a row is kept with a
 * version no newer than the data it was computed from: a fold that commits
 * in between makes the row stale at once, never a stale row current.
 */
export async function rememberedDays(
  db: Db,
  organizationId: string,
  dim: LatencyDim,
  from: string,
  to: string,
  compute: (runs: readonly DayRun[]) => Promise<LatencyRow[]>,
): Promise<LatencyRow[]> {
  const versions = new Map(
    (
      await db
        .selectFrom('analytics_day_versions')
        .select(['period', 'version'])
        .where('organization_id', '=', organizationId)
        .where('period', '>=', from)
        .where('period', '<=', to)
        .execute()
    ).map((r) => [r.period, Number(r.version)]),
  );
  const versionOf = (period: string) => versions.get(period) ?? 0;
  const kept = await db
    .selectFrom('analytics_day_percentiles')
    .select(['period', 'kind', 'version', 'count', 'p50', 'p90', 'p95'])
    .where('organization_id', '=', organizationId)
    .where('dim', '=', dim)
    .where('value', '=', '')
    .where('period', '>=', from)
    .where('period', '<=', to)
    .execute();
  const current = kept.filter((r) => Number(r.version) === versionOf(r.period));
  const known = new Set(current.map((r) => r.period));
  const days = daysBetween(from, to);
  let runs = runsOf(days.filter((d) => !known.has(d)));
  if (runs.length > MAX_RUNS) runs = [{ from, to }];
  const computed = runs.length === 0 ? [] : await compute(runs);
  const seen = new Set(computed.map((r) => r.key));
  const quiet = runs
    .flatMap((run) => daysBetween(run.from, run.to))
    .filter((d) => !seen.has(d) && !known.has(d))
    .map((d): LatencyRow => ({ key: d, kind: 'sent', count: 0, p50: null, p90: null, p95: null }));
  await keep(db, organizationId, dim, [...computed, ...quiet], versionOf);
  return [
    ...current
      .filter((r) => Number(r.count) > 0)
      .map((r) => ({
        key: r.period,
        kind: r.kind,
        count: Number(r.count),
        p50: percentileOf(r.p50),
        p90: percentileOf(r.p90),
        p95: percentileOf(r.p95),
      })),
    ...computed,
  ];
}

async function keep(
  db: Db,
  organizationId: string,
  dim: LatencyDim,
  rows: readonly LatencyRow[],
  versionOf: (period: string) => number,
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK)
    await db
      .insertInto('analytics_day_percentiles')
      .values(
        rows.slice(i, i + CHUNK).map((r) => ({
          organization_id: organizationId,
          dim,
          period: r.key,
          value: '',
          kind: r.kind,
          version: versionOf(r.key),
          count: r.count,
          p50: r.p50,
          p90: r.p90,
          p95: r.p95,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['organization_id', 'dim', 'period', 'value', 'kind']).doUpdateSet((eb) => ({
          version: eb.ref('excluded.version'),
          count: eb.ref('excluded.count'),
          p50: eb.ref('excluded.p50'),
          p90: eb.ref('excluded.p90'),
          p95: eb.ref('excluded.p95'),
        })),
      )
      .execute();
}

const DAY_MS = 86_400_000;

/** Every day from `from` to `to` (YYYY-MM-DD, inclusive). */
function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** Sorted days grouped into runs of consecutive days. */
function runsOf(days: readonly string[]): DayRun[] {
  const runs: DayRun[] = [];
  for (const d of days) {
    const last = runs[runs.length - 1];
    if (last && Date.parse(`${d}T00:00:00Z`) - Date.parse(`${last.to}T00:00:00Z`) === DAY_MS) last.to = d;
    else runs.push({ from: d, to: d });
  }
  return runs;
}
