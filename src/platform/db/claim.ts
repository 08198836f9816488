import {
  sql,
  type AliasedRawBuilder,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type RawBuilder,
  type SqlBool,
} from 'kysely';
import { keysIn, type RowKey } from './keys.js';
import type { Database } from './schema.js';
import { skipLocked, takesRowLocks } from './locks.js';
import { singleStatement } from './together.js';

type QueueTable = 'webhook_deliveries' | 'jobs';

export type { RowKey };

/** The rows of a batch by primary key (platform/db/keys.ts: an index probe on both dialects). */
export function byKeys(keys: readonly RowKey[]) {
  return keysIn(keys) as (eb: ExpressionBuilder<Database, QueueTable>) => Expression<SqlBool>;
}

/**
 * Spreads a claim over the values of a column (webhook deliveries over their
 * endpoints): a value already at `max` in flight is not claimed at all, and
 * one claim takes at most the room the others leave. Without it, a backlog
 * for one endpoint that hangs fills every slot and starves all the others.
 */
export interface ClaimSpread {
  column: 'endpoint_id';
  max: number;
  inFlight: ReadonlyMap<string, number>;
}

/**
 * The claimed rows are matched by their physical identity (PostgreSQL's ctid,
 * SQLite's rowid), not by key: `(organization_id, id) IN (subquery)` left the
 * join to the planner, which on a queue table with lagging statistics chose a
 * hash join over a sequential scan of the whole table, a cost that grows with
 * the delivery history. `ctid = ANY(ARRAY(...))` is a TID scan whatever the
 * statistics say. The ctid is read under the row lock taken by the same
 * statement, so it still names the locked row version.
 */
function rowIdentity(db: Kysely<Database>): string {
  return takesRowLocks(db) ? 'ctid' : 'rowid';
}

function byRowIdentity(db: Kysely<Database>, due: Expression<unknown>) {
  const sub = due as never;
  return takesRowLocks(db) ? sql<SqlBool>`ctid = any(array(${sub}))` : sql<SqlBool>`rowid in (${sub})`;
}

export interface ClaimOptions {
  spread?: ClaimSpread;
  /** Jobs only: the claim's fence token (jobs.lease_token), so a later claim of the same row can tell the two holders apart. */
  fence?: string;
  /** More to return with each claimed row (its whole row and aliased scalar subqueries), read by the claiming statement itself. */
  also?: AliasedRawBuilder<unknown, string>[];
  /** Claims only rows that also meet this condition (a lane of the queue, e.g. jobs due at an exact instant). */
  lane?: RawBuilder<SqlBool>;
  /**
   * Claims the rows of this lane ahead of the others, in the same statement:
   * `ahead` first (in due order), then rows of `rest` (the lane's complement) into
   * the room it left. One statement where a claim per lane cost two each tick.
   */
  lanes?: { ahead: RawBuilder<SqlBool>; rest: RawBuilder<SqlBool> };
  /** Returns each claimed row whole (as `also` does), so the caller needs no second read. */
  whole?: boolean;
}

/**
 * Leases up to `limit` due rows of a queue table to this worker in one
 * statement: `UPDATE ... WHERE key IN (SELECT ... LIMIT n [FOR UPDATE SKIP
 * LOCKED]) RETURNING`. On PostgreSQL the subquery skips rows another worker
 * holds, so workers on many machines never claim the same row and never wait
 * on each other; on SQLite the statement holds the write lock. One round trip
 * instead of a transaction of four (BEGIN, SELECT, UPDATE, COMMIT): on
 * PostgreSQL the round trips were most of the cost of a batch. Either way the
 * lease makes the row invisible to others until it passes; a worker that dies
 * simply lets it lapse and the row is claimed again.
 *
 * With a spread, rows beyond an endpoint's room (rare: only when several
 * endpoints are near their share) are claimed and at once released again.
 */
export async function claimDue(
  db: Kysely<Database>,
  table: QueueTable,
  dueColumn: 'next_attempt_at' | 'run_at',
  now: string,
  leaseUntil: string,
  limit: number,
  { spread, fence, also = [], lane, lanes, whole = false }: ClaimOptions = {},
): Promise<(RowKey & Record<string, unknown>)[]> {
  const full = spread ? [...spread.inFlight].filter(([, n]) => n >= spread.max).map(([value]) => value) : [];
  const dueIn = (only: RawBuilder<SqlBool> | undefined) =>
    db
      .selectFrom(table)
      .select(sql.raw<string>(rowIdentity(db)).as('row_identity'))
      .where('status', '=', 'pending')
      .where(dueColumn, '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      // biome-ignore lint/style/noNonNullAssertion: `full` is empty unless `spread` is given
      .$if(full.length > 0, (qb) => qb.where(sql.ref(spread!.column), 'not in', full))
      // biome-ignore lint/style/noNonNullAssertion: $if calls this only when `only` is given
      .$if(only !== undefined, (qb) => qb.where(only!))
      .orderBy(dueColumn);
  // Two lanes in one statement: each a CTE (PostgreSQL refuses FOR UPDATE in a UNION's arms), the second
  // limited to the room the first left, so it locks no row it will not claim.
  const due = lanes
    ? db
        .with('ahead', () => skipLocked(db, dueIn(lanes.ahead).limit(limit)))
        .with('rest', () =>
          skipLocked(db, dueIn(lanes.rest).limit(sql<number>`(select ${sql.lit(limit)} - count(*) from ahead)`)),
        )
        .selectFrom('ahead')
        .select('row_identity')
        .unionAll((eb) => eb.selectFrom('rest').select('row_identity'))
    : skipLocked(db, dueIn(lane).limit(limit));
  const lease = fence === undefined ? { lease_until: leaseUntil } : { lease_until: leaseUntil, lease_token: fence };
  const claimed = (await singleStatement(db, (db) =>
    db
      .updateTable(table)
      .set(lease as { lease_until: string })
      .where(byRowIdentity(db, due))
      .$if(whole || also.length > 0, (qb) => qb.returningAll())
      .$if(also.length > 0, (qb) => qb.returning(also as never))
      .returning([
        'organization_id',
        'id',
        sql.ref<string | null>(spread ? spread.column : 'organization_id').as('spread_key'),
      ])
      .execute(),
  )) as (RowKey & { spread_key: string | null } & Record<string, unknown>)[];
  const strip = ({ spread_key: _, ...row }: (typeof claimed)[number]) => row as RowKey & Record<string, unknown>;
  if (!spread) return claimed.map(strip);
  const taken = new Map(spread.inFlight);
  const kept: (RowKey & Record<string, unknown>)[] = [];
  const over: RowKey[] = [];
  for (const r of claimed) {
    // biome-ignore lint/style/noNonNullAssertion: a null spread value is a key of its own (a Map takes null)
    const n = taken.get(r.spread_key!) ?? 0;
    if (n >= spread.max) {
      over.push({ organization_id: r.organization_id, id: r.id });
      continue;
    }
    // biome-ignore lint/style/noNonNullAssertion: as above, null counts as one value
    taken.set(r.spread_key!, n + 1);
    kept.push(strip(r));
  }
  if (over.length > 0) await db.updateTable(table).set({ lease_until: null }).where(byKeys(over)).execute();
  return kept;
}
