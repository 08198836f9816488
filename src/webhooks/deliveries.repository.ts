import { mentions } from '../platform/db/text.js';
import type { Insertable, Selectable, Updateable } from 'kysely';
import { byKeys, claimDue, type ClaimSpread, type RowKey } from '../platform/db/claim.js';
import type { Db, WebhookDeliveriesTable } from '../platform/db/schema.js';

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export async function insertDeliveries(db: Db, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  // Chunked: SQLite caps bound parameters per statement.
  for (let i = 0; i < rows.length; i += 200) await db.insertInto('webhook_deliveries').values(rows.slice(i, i + 200)).execute();
}

export async function findDelivery(db: Db, organizationId: string, endpointId: string, id: string): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Newest first: the latest attempts are what an operator looks for. */
export async function listDeliveries(db: Db, organizationId: string, endpointId: string, beforeId: string | undefined, limit: number, status?: string): Promise<DeliveryRow[]> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('organization_id', '=', organizationId).where('endpoint_id', '=', endpointId);
  if (beforeId) q = q.where('id', '<', beforeId);
  if (status) q = q.where('status', '=', status as DeliveryRow['status']);
  return q.orderBy('id', 'desc').limit(limit + 1).execute();
}

/** Leases due deliveries to this worker (platform/db/claim.ts), spread over endpoints. */
export async function claimDueDeliveries(db: Db, now: string, leaseUntil: string, limit: number, spread: ClaimSpread): Promise<DeliveryRow[]> {
  const keys = await claimDue(db, 'webhook_deliveries', 'next_attempt_at', now, leaseUntil, limit, spread);
  if (keys.length === 0) return [];
  return db.selectFrom('webhook_deliveries').selectAll().where(byKeys(keys)).execute();
}

/** Delivery outcomes, many rows per statement: one round trip per kind of outcome, not per delivery. */
export async function updateDeliveries(db: Db, keys: readonly RowKey[], patch: Updateable<WebhookDeliveriesTable>): Promise<void> {
  for (let i = 0; i < keys.length; i += 200) await db.updateTable('webhook_deliveries').set(patch).where(byKeys(keys.slice(i, i + 200))).execute();
}


/**
 * Erasure of a lead: delivery error texts that quote one of its addresses.
 * A delivery row holds no payload (the body is built from its event, which
 * events/outbox.repository.ts `eraseLeadEvents` reduces to a stub), only ids,
 * the endpoint's status code and this free text; today's sender writes
 * `HTTP <status>` or a transport error there, but the column is free text and
 * an error may quote what it was sent.
 */
export async function clearDeliveryErrorsMentioning(db: Db, organizationId: string, addresses: readonly string[]): Promise<number> {
  if (addresses.length === 0) return 0;
  const res = await db
    .updateTable('webhook_deliveries')
    .set({ last_error: null })
    .where('organization_id', '=', organizationId)
    .where((eb) => eb.or(addresses.map((a) => mentions('last_error', a))))
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
