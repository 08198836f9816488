import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { DialectName } from './connect.js';

type QueueTable = 'webhook_deliveries' | 'jobs';

export interface RowKey {
  organization_id: string;
  id: string;
}

/** `(organization_id, id) IN (...)`: matches the tables' primary keys, so the lookup is an index probe. */
export function byKeys(keys: RowKey[]) {
  return (eb: ExpressionBuilder<Database, QueueTable>) =>
    eb(eb.refTuple('organization_id', 'id'), 'in', keys.map((k) => eb.tuple(k.organization_id, k.id)));
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
  dialect: DialectName,
  table: QueueTable,
  dueColumn: 'next_attempt_at' | 'run_at',
  now: string,
  leaseUntil: string,
  limit: number,
): Promise<{ organization_id: string; id: string }[]> {
  return db.transaction().execute(async (trx) => {
    let q = trx
      .selectFrom(table)
      .select(['organization_id', 'id'])
      .where('status', '=', 'pending')
      .where(dueColumn, '<=', now)
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .orderBy(dueColumn)
      .limit(limit);
    if (dialect === 'postgres') q = q.forUpdate().skipLocked();
    const rows = await q.execute();
    if (rows.length === 0) return [];
    await trx.updateTable(table).set({ lease_until: leaseUntil }).where(byKeys(rows)).execute();
    return rows;
  });
}
