import type { Db } from '../platform/db/schema.js';
import type { LatencyDim, LatencyRow } from './latency.js';

/** Rows per upsert (SQLite binds ten values a row). */
const CHUNK = 500;

/**
 * Speed to lead by day, remembered. A report by day over a year computed 730
 * percentile groups from some 90k histogram rows on every request, though a
 * past day's histogram no longer changes. A day's percentiles are now kept
 * with the day's version (analytics_day_versions: every fold that changes
 * the day's histograms adds one, in its transaction) and reused while the
 * version is the same; a day whose version moved, or that was never
 * computed, is computed by `compute` (told the days to leave out) and kept.
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
  compute: (leaveOut: readonly string[]) => Promise<LatencyRow[]>,
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
  const computed = await compute([...new Set(current.map((r) => r.period))]);
  for (let i = 0; i < computed.length; i += CHUNK)
    await db
      .insertInto('analytics_day_percentiles')
      .values(
        computed.slice(i, i + CHUNK).map((r) => ({
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
  const num = (v: number | string | null) => (v === null ? null : Number(v));
  return [
    ...current.map((r) => ({
      key: r.period,
      kind: r.kind,
      count: Number(r.count),
      p50: num(r.p50),
      p90: num(r.p90),
      p95: num(r.p95),
    })),
    ...computed,
  ];
}
