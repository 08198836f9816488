import type { Insertable } from 'kysely';
import { claimUndispatched, hasUndispatched, markDispatched } from '../events/outbox.repository.js';
import { isoNow } from '../platform/clock.js';
import { takesRowLocks } from '../platform/db/locks.js';
import type { Deps } from '../platform/deps.js';
import type { WebhookDeliveriesTable } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';
import { insertDeliveries } from './deliveries.repository.js';
import { endpointsOf, lockDisabled, wants } from './endpoints.repository.js';

/**
 * Fans committed outbox events out to the endpoints subscribed to them: one
 * delivery row per (event, endpoint), written in the same transaction that marks
 * the events dispatched, so a crash either leaves the event pending (done again
 * later) or fully fanned out, never half. Disabled endpoints get their rows
 * too, held until they are enabled again: disabling pauses, it never drops.
 */
export async function dispatchEvents(deps: Deps, limit: number): Promise<number> {
  // With row locks (PostgreSQL) an empty claim is three round trips, so an idle poll probes first. On
  // SQLite a statement outside a transaction would cut short the group commit (platform/db/sqlite-group-commit.ts),
  // and the claim's transaction costs no round trips: it goes straight to the claim.
  if (takesRowLocks(deps.db) && !(await hasUndispatched(deps.db))) return 0;
  return deps.db.transaction().execute(async (trx) => {
    const events = await claimUndispatched(trx, limit);
    if (events.length === 0) return 0;
    const now = isoNow(deps.clock);
    const endpoints = await endpointsOf(trx, [...new Set(events.map((e) => e.organization_id))]);
    const disabled = await lockDisabled(
      trx,
      endpoints.filter((ep) => Number(ep.enabled) !== 1),
    );
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
    await insertDeliveries(trx, rows);
    await markDispatched(trx, events, now);
    return events.length;
  });
}
