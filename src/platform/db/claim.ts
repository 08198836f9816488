import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import { keysIn, type RowKey } from './keys.js';
import type { Database } from './schema.js';
import { skipLocked } from './locks.js';

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
 * Leases up to `limit` due rows of a queue table to this worker, in one short
 * transaction. PostgreSQL: FOR UPDATE SKIP LOCKED, so workers on many machines
 * never claim the same row and never wait on each other. SQLite: the whole
 * transaction holds the write lock (BEGIN IMMEDIATE). Either way the lease
 * makes the row invisible to others until it passes; a worker that dies simply
 * lets it lapse and the row is claimed again.
 */
export async function claimDue(
  db: Kysely<Database>,
  table: QueueTable,
  dueColumn: 'next_attempt_at' | 'run_at',
  now: string,
  leaseUntil: string,
  limit: number,
  spread?: ClaimSpread,
  /** Jobs only: the claim's fence token (jobs.lease_token), so a later claim of the same row can tell the two holders apart. */
  fence?: string,
): Promise<{ organization_id: string; id: string }[]> {
  const full = spread ? [...spread.inFlight].filter(([, n]) => n >= spread.max).map(([value]) => value) : [];
  return db.transaction().execute(async (trx) => {
    const q = trx
      .selectFrom(table)
      .select(['organization_id', 'id'])
      .$if(!!spread, (qb) => qb.select(sql.ref<string>(spread!.column).as('spread_key')))
      .where('status', '=', 'pending')
      .where(dueColumn, '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .$if(full.length > 0, (qb) => qb.where(sql.ref(spread!.column), 'not in', full))
      .orderBy(dueColumn)
      .limit(limit);
    let rows = await skipLocked(trx, q).execute();
    if (spread) {
      // Rows left out are not leased: on PostgreSQL their locks go with this transaction, so any worker may take them.
      const taken = new Map(spread.inFlight);
      rows = rows.filter((r) => {
        const n = taken.get(r.spread_key!) ?? 0;
        if (n >= spread.max) return false;
        taken.set(r.spread_key!, n + 1);
        return true;
      });
    }
    if (rows.length === 0) return [];
    const lease = fence === undefined ? { lease_until: leaseUntil } : { lease_until: leaseUntil, lease_token: fence };
    await trx.updateTable(table).set(lease as { lease_until: string }).where(byKeys(rows)).execute();
    return rows.map((r) => ({ organization_id: r.organization_id, id: r.id }));
  });
}
