import type { Insertable } from 'kysely';
import {
  claimUndispatched,
  emitDispatched,
  hasUndispatched,
  markDispatched,
  type OutboxEvent,
  type PendingEvent,
} from '../events/outbox.repository.js';
import { isoNow } from '../platform/clock.js';
import { takesRowLocks } from '../platform/db/locks.js';
import type { Deps } from '../platform/deps.js';
import type { Db, WebhookDeliveriesTable } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';
import { insertDeliveries } from './deliveries.repository.js';
import { endpointsOf, lockDisabled, wants, type EndpointRow } from './endpoints.repository.js';

/**
 * Fans committed outbox events out to the endpoints subscribed to them: one
 * delivery row per (event, endpoint), written in the same transaction that marks
 * the events dispatched, so a crash either leaves the event pending (done again
 * later) or fully fanned out, never half. Disabled endpoints get their rows
 * too, held until they are enabled again: disabling pauses, it never drops.
 */
export async function dispatchEvents(deps: Deps, limit: number): Promise<Dispatched> {
  const none = { events: 0, deliveries: 0 };
  // With row locks (PostgreSQL) an empty claim is three round trips, so an idle poll probes first. On
  // SQLite a statement outside a transaction would cut short the group commit (platform/db/sqlite-group-commit.ts),
  // and the claim's transaction costs no round trips: it goes straight to the claim.
  if (takesRowLocks(deps.db) && !(await hasUndispatched(deps.db))) return none;
  return deps.db.transaction().execute(async (trx) => {
    const events = await claimUndispatched(trx, limit);
    if (events.length === 0) return none;
    const now = isoNow(deps.clock);
    const endpoints = await endpointsOf(trx, [...new Set(events.map((e) => e.organization_id))]);
    const disabled = await lockDisabled(
      trx,
      endpoints.filter((ep) => Number(ep.enabled) !== 1),
    );
    const rows = deliveriesFor(events, endpoints, disabled, now);
    await insertDeliveries(trx, rows);
    await markDispatched(trx, events, now);
    return { events: events.length, deliveries: rows.length };
  });
}

/** What a fan-out did: events marked dispatched, delivery rows written for them. */
export interface Dispatched {
  events: number;
  deliveries: number;
}

/**
 * Emits events already fanned out, in the caller's transaction: the worker's
 * own outcomes (a send's `message.sent`), which otherwise woke the worker at
 * their commit for a tick that, with no endpoint subscribed, found nothing to
 * deliver. The same rows the dispatcher would write, in the same transaction
 * as the change: the deliveries (if any) wake the worker; the events do not.
 */
export async function emitFannedOut(trx: Db, organizationId: string, at: string, events: OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const endpoints = await endpointsOf(trx, [organizationId]);
  const emitted = await emitDispatched(trx, organizationId, at, events);
  const wanting = endpoints.filter((ep) => emitted.some((e) => wants(ep, e.type)));
  if (wanting.length === 0) return;
  const disabled = await lockDisabled(
    trx,
    wanting.filter((ep) => Number(ep.enabled) !== 1),
  );
  await insertDeliveries(trx, deliveriesFor(emitted, wanting, disabled, at));
}

/** One delivery row per (event, endpoint that wants it); a disabled endpoint's are held (no due time) until it is enabled again. */
function deliveriesFor(
  events: readonly PendingEvent[],
  endpoints: readonly EndpointRow[],
  disabled: ReadonlySet<string>,
  now: string,
): Insertable<WebhookDeliveriesTable>[] {
  const rows: Insertable<WebhookDeliveriesTable>[] = [];
  for (const event of events) {
    for (const ep of endpoints) {
      if (ep.organization_id !== event.organization_id || !wants(ep, event.type)) continue;
      rows.push({
        organization_id: event.organization_id,
        id: newId(),
        endpoint_id: ep.id,
        event_id: event.id,
        event_type: event.type,
        lead_id: event.lead_id,
        status: 'pending',
        attempts: 0,
        // A disabled endpoint's events are kept, held (no due time) until it is enabled again.
        next_attempt_at: disabled.has(ep.id) ? null : now,
        lease_until: null,
        last_status_code: null,
        last_error: null,
        created_at: now,
        updated_at: now,
        delivered_at: null,
      });
    }
  }
  return rows;
}
