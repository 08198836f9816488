import { mentions } from '../platform/db/text.js';
import type { Insertable, Selectable, Updateable } from 'kysely';
import { byKeys, claimDue, type ClaimSpread, type RowKey } from '../platform/db/claim.js';
import type { Db, WebhookDeliveriesTable } from '../platform/db/schema.js';
import { withLock } from '../platform/db/locks.js';
import { keysIn } from '../platform/db/keys.js';

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

/** A claimed delivery with what its attempt needs: its event (null if gone) and its endpoint (null if deleted). */
export interface DeliveryWork extends DeliveryRow {
  event: { id: string; type: string; payload: string; created_at: string } | null;
  endpoint: { id: string; url: string; secret: string; enabled: number } | null;
}

/**
 * Leases due deliveries to this worker (platform/db/claim.ts), spread over
 * endpoints, and reads them with their events and endpoints in one statement
 * (one round trip, not three: on PostgreSQL round trips are most of a batch's cost).
 */
export async function claimDueDeliveries(db: Db, now: string, leaseUntil: string, limit: number, spread: ClaimSpread): Promise<DeliveryWork[]> {
  const keys = await claimDue(db, 'webhook_deliveries', 'next_attempt_at', now, leaseUntil, limit, spread);
  if (keys.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('events as e', (j) => j.onRef('e.organization_id', '=', 'd.organization_id').onRef('e.id', '=', 'd.event_id'))
    .leftJoin('webhook_endpoints as w', (j) => j.onRef('w.organization_id', '=', 'd.organization_id').onRef('w.id', '=', 'd.endpoint_id'))
    .selectAll('d')
    .select(['e.id as e_id', 'e.type as e_type', 'e.payload as e_payload', 'e.created_at as e_created_at'])
    .select(['w.id as w_id', 'w.url as w_url', 'w.secret as w_secret', 'w.enabled as w_enabled'])
    .where(keysIn(keys, 'id', 'd'))
    .execute();
  return rows.map(({ e_id, e_type, e_payload, e_created_at, w_id, w_url, w_secret, w_enabled, ...d }) => ({
    ...d,
    event: e_id === null ? null : { id: e_id, type: e_type!, payload: e_payload!, created_at: e_created_at! },
    endpoint: w_id === null ? null : { id: w_id, url: w_url!, secret: w_secret!, enabled: Number(w_enabled) },
  }));
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

/**
 * Holds deliveries whose endpoint is (still) disabled: pending, no due time,
 * lease released, attempts unchanged. The endpoints are read under a share
 * lock, so an enable committing meanwhile (which takes the row FOR UPDATE, then
 * resumes held rows) is either seen here, and the row is left due, or waits
 * for this and then resumes it: a delivery is never held behind an enabled
 * endpoint. (SQLite serialises writers anyway.)
 */
export async function holdDeliveries(db: Db, keys: readonly RowKey[], now: string): Promise<void> {
  for (let i = 0; i < keys.length; i += 200) {
    const chunk = keys.slice(i, i + 200);
    const rows = await db.selectFrom('webhook_deliveries').select(['organization_id', 'endpoint_id']).where(byKeys([...chunk])).execute();
    const endpointKeys = [...new Map(rows.map((r) => [`${r.organization_id}/${r.endpoint_id}`, r])).values()];
    if (endpointKeys.length === 0) continue;
    const q = db
      .selectFrom('webhook_endpoints')
      .select(['organization_id', 'id'])
      .where((eb) => eb(eb.refTuple('organization_id', 'id'), 'in', endpointKeys.map((k) => eb.tuple(k.organization_id, k.endpoint_id))))
      .where('enabled', '=', 0);
    const disabled = await withLock(db, q, 'share').execute();
    // Rows whose endpoint was enabled meanwhile are due as they were: give up the lease so they go out now.
    await db.updateTable('webhook_deliveries').set({ lease_until: null }).where(byKeys([...chunk])).execute();
    if (disabled.length === 0) continue;
    await db
      .updateTable('webhook_deliveries')
      .set({ lease_until: null, next_attempt_at: null, updated_at: now })
      .where(byKeys([...chunk]))
      .where((eb) => eb(eb.refTuple('organization_id', 'endpoint_id'), 'in', disabled.map((d) => eb.tuple(d.organization_id, d.id))))
      .execute();
  }
}

/**
 * Deliveries held while their endpoint was disabled (pending, no due time)
 * become due again, each at its creation time: the backlog goes out oldest
 * first, ahead of anything created since.
 */
export async function resumeHeldDeliveries(db: Db, organizationId: string, endpointId: string): Promise<number> {
  const res = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ next_attempt_at: eb.ref('created_at') }))
    .where('organization_id', '=', organizationId)
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
