import { sql, type Kysely } from 'kysely';
import { locksRows } from '../platform/db/capabilities.js';
import type { AnalyticsPendingTable, Database, Db } from '../platform/db/schema.js';

/**
 * Counting without a shared row lock. Every analytics count of an
 * organization lands on the same few rollup rows (its day, its month, its
 * profile...), so upserting them in the transaction that changes the state
 * made every concurrent lead creation and send completion of the
 * organization wait for the one before it to commit: a burst on PostgreSQL
 * queued there. A count is now a plain insert into analytics_pending; the
 * fold adds the pending rows into the rollups, in the worker every second
 * and before every report reads, so a report still counts everything
 * committed before it.
 */

type Target = AnalyticsPendingTable['target'];
export type Cell = Record<string, string | number | null>;

/** Each rollup table's key (what a pending cell names) and its counters. */
const SHAPES: Record<Target, { keys: readonly string[]; counters: readonly string[] }> = {
  analytics_rollups: {
    keys: ['organization_id', 'dim', 'period', 'value'],
    counters: ['leads', 'contacted', 'delivered', 'replied', 'hot', 'qualified', 'booked', 'opted_out', 'failed'],
  },
  analytics_latency: { keys: ['organization_id', 'dim', 'period', 'value', 'kind', 'bucket'], counters: ['count'] },
  analytics_numbers: {
    keys: ['organization_id', 'period', 'sending_number_id'],
    counters: ['sent', 'delivered', 'failed'],
  },
  analytics_errors: { keys: ['organization_id', 'period', 'sending_number_id', 'code'], counters: ['count'] },
  analytics_variants: {
    keys: ['organization_id', 'profile', 'variant'],
    counters: ['sent', 'replied', 'qualified', 'booked', 'opted_out'],
  },
};
/** The order folds write the targets in, and the rows within each (sorted keys): two folds never wait on each other in a cycle. */
const TARGETS = Object.keys(SHAPES) as Target[];

export interface PendingCount {
  target: Target;
  cells: readonly Cell[];
  counter: string;
  amount?: number;
}

/** Queues counts (each `amount` on `counter` of every cell): one insert, whatever the number of counts. */
export async function addPending(db: Db, organizationId: string, counts: readonly PendingCount[]): Promise<void> {
  if (counts.length === 0) return;
  await db
    .insertInto('analytics_pending')
    .values(
      counts.map((c) => ({
        organization_id: organizationId,
        target: c.target,
        cells: JSON.stringify(c.cells),
        counter: c.counter,
        amount: c.amount ?? 1,
      })),
    )
    .execute();
}

/** Pending rows taken per fold transaction. */
const BATCH = 5000;
/** Rollup rows per upsert statement (SQLite binds each row's 13 values; well inside its limits). */
const UPSERT_CHUNK = 500;

/**
 * Adds pending counts into the rollups, in batches, each batch in one
 * transaction (taking the rows and adding them up commit together, so a
 * count is never lost or added twice). On PostgreSQL a fold skips rows
 * another fold holds, so any number of workers may fold at once.
 */
export async function foldPending(db: Kysely<Database>): Promise<number> {
  // Most looks find nothing: no transaction (on SQLite, no write lock) for them.
  if (!(await db.selectFrom('analytics_pending').select('id').limit(1).executeTakeFirst())) return 0;
  return foldBatches(db, undefined, undefined);
}

/**
 * Before a report reads: folds every count of the organization committed so
 * far. Rows another fold holds are waited for (`for update`), so the report
 * reads what that fold added; counts committed meanwhile are left to the
 * next fold, so a busy organization's report does not chase its own tail.
 */
export async function foldOrganization(db: Kysely<Database>, organizationId: string): Promise<number> {
  const top = await db
    .selectFrom('analytics_pending')
    .select((eb) => eb.fn.max('id').as('top'))
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  if (top?.top === null || top?.top === undefined) return 0;
  let folded = 0;
  for (;;) {
    folded += await foldBatches(db, organizationId, top.top);
    if (!locksRows(db)) return folded;
    const left = await db
      .selectFrom('analytics_pending')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '<=', top.top)
      .forUpdate()
      .execute();
    if (left.length === 0) return folded;
  }
}

async function foldBatches(
  db: Kysely<Database>,
  organizationId: string | undefined,
  upTo: number | string | undefined,
): Promise<number> {
  let folded = 0;
  for (;;) {
    const n = await db.transaction().execute(async (trx) => {
      let ids = trx.selectFrom('analytics_pending').select('id').orderBy('id').limit(BATCH);
      if (organizationId !== undefined) ids = ids.where('organization_id', '=', organizationId);
      if (upTo !== undefined) ids = ids.where('id', '<=', upTo);
      if (locksRows(trx)) ids = ids.forUpdate().skipLocked();
      const rows = await trx
        .deleteFrom('analytics_pending')
        .where('id', 'in', ids)
        .returning(['target', 'cells', 'counter', 'amount'])
        .execute();
      await addUp(trx, rows);
      return rows.length;
    });
    folded += n;
    if (n < BATCH) return folded;
  }
}

type PendingRow = Pick<AnalyticsPendingTable, 'target' | 'cells' | 'counter' | 'amount'>;

async function addUp(db: Db, rows: readonly PendingRow[]): Promise<void> {
  const sums = new Map<Target, Map<string, Cell>>();
  for (const row of rows) {
    const shape = SHAPES[row.target];
    let byKey = sums.get(row.target);
    if (!byKey) sums.set(row.target, (byKey = new Map()));
    for (const cell of JSON.parse(row.cells) as Cell[]) {
      const key = JSON.stringify(shape.keys.map((k) => cell[k]));
      let sum = byKey.get(key);
      if (!sum) {
        sum = { ...cell };
        for (const c of shape.counters) sum[c] = 0;
        byKey.set(key, sum);
      }
      sum[row.counter] = Number(sum[row.counter]) + Number(row.amount);
    }
  }
  for (const target of TARGETS) {
    const byKey = sums.get(target);
    if (!byKey) continue;
    const sorted = [...byKey.keys()].sort().map((k) => byKey.get(k) as Cell);
    for (let i = 0; i < sorted.length; i += UPSERT_CHUNK) await upsert(db, target, sorted.slice(i, i + UPSERT_CHUNK));
  }
  await newDayVersions(db, sums.get('analytics_latency'));
}

/** The days whose histograms this fold changed: their remembered percentiles are stale from its commit on. */
async function newDayVersions(db: Db, latency: Map<string, Cell> | undefined): Promise<void> {
  if (!latency) return;
  const days = new Map<string, { organization_id: string; period: string; version: number }>();
  for (const cell of latency.values()) {
    const period = String(cell.period);
    if (period.length !== 10) continue;
    const organizationId = String(cell.organization_id);
    days.set(`${organizationId}\u0000${period}`, { organization_id: organizationId, period, version: 1 });
  }
  if (days.size === 0) return;
  const sorted = [...days.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, day]) => day);
  await db
    .insertInto('analytics_day_versions')
    .values(sorted)
    .onConflict((oc) =>
      oc.columns(['organization_id', 'period']).doUpdateSet({ version: sql`analytics_day_versions.version + 1` }),
    )
    .execute();
}

async function upsert(db: Db, target: Target, cells: readonly Cell[]): Promise<void> {
  const { keys, counters } = SHAPES[target];
  await db
    .insertInto(target)
    .values(cells as never)
    .onConflict((oc) =>
      oc
        .columns(keys as never)
        .doUpdateSet(
          Object.fromEntries(
            counters.map((c) => [c, sql`${sql.ref(`${target}.${c}`)} + excluded.${sql.ref(c)}`]),
          ) as never,
        ),
    )
    .execute();
}
