import { isoNow } from '../platform/clock.js';
import type { Deps } from '../platform/deps.js';
import { DomainError, NotFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { decodeCursor, page } from '../platform/http/pagination.js';
import * as deliveries from './deliveries.repository.js';
import { envelope } from './delivery.js';
import { toDeliveryView } from './webhooks.mapper.js';
import type { ListDeliveriesInput } from './webhooks.schemas.js';
import { requireEndpoint } from './endpoints.repository.js';

export const deliveryNotFound = (id: string) => new NotFound('WebhookDelivery', 'id', id);

const endpointDisabled = () => new DomainError('endpoint_disabled');

/** Newest first, keyset-paged by the time-ordered id. */
export async function listDeliveries(deps: Deps, organizationId: string, endpointId: string, q: ListDeliveriesInput) {
  await requireEndpoint(deps.db, organizationId, endpointId);
  const limit = q.limit ?? 100;
  const rows = await deliveries.listDeliveries(deps.db, organizationId, endpointId, decodeCursor(q.nextToken), limit, {
    status: q.status,
    eventType: q.eventType,
    leadId: q.leadId,
  });
  const { items, nextToken } = page(rows, limit);
  return { deliveries: items.map(toDeliveryView), nextToken };
}

/** One delivery with the body it sends (the envelope, as every attempt sends it), or null when the event is gone. */
export async function getDelivery(deps: Deps, organizationId: string, endpointId: string, deliveryId: string) {
  await requireEndpoint(deps.db, organizationId, endpointId);
  const row = await deliveries.findDelivery(deps.db, organizationId, endpointId, deliveryId);
  if (!row) throw deliveryNotFound(deliveryId);
  const event = await deliveries.findDeliveryEvent(deps.db, organizationId, row.event_id);
  return {
    ...toDeliveryView(row),
    body: event ? (JSON.parse(envelope(event.type, event.created_at, event.payload)) as Record<string, unknown>) : null,
  };
}

export interface AttemptAnswer {
  at: string;
  statusCode: number | null;
  error: string | null;
}

/**
 * Each attempt's answer, oldest first (the console's webhooks page). A delivery
 * attempted before migration 0039 kept only its last answer: that one, at its
 * last update, stands for its attempts.
 */
export async function deliveryAnswers(
  deps: Deps,
  organizationId: string,
  endpointId: string,
  deliveryId: string,
): Promise<AttemptAnswer[]> {
  await requireEndpoint(deps.db, organizationId, endpointId);
  const row = await deliveries.findDelivery(deps.db, organizationId, endpointId, deliveryId);
  if (!row) throw deliveryNotFound(deliveryId);
  if (row.answers)
    return row.answers
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AttemptAnswer);
  if (Number(row.attempts) === 0) return [];
  const code = row.last_status_code === null ? null : Number(row.last_status_code);
  return [{ at: row.updated_at, statusCode: code, error: row.last_error }];
}

/**
 * A replay is a new delivery of the same event (same event id, so receivers
 * can still deduplicate), due now; the original row keeps its history.
 */
export async function replayDelivery(
  deps: Deps,
  organizationId: string,
  endpointId: string,
  deliveryId: string,
): Promise<string> {
  const id = newId();
  await deps.db.transaction().execute(async (trx) => {
    const endpoint = await requireEndpoint(trx, organizationId, endpointId, true);
    const original = await deliveries.findDelivery(trx, organizationId, endpointId, deliveryId);
    if (!original) throw deliveryNotFound(deliveryId);
    if (Number(endpoint.enabled) !== 1) throw endpointDisabled();
    const at = isoNow(deps.clock);
    await deliveries.insertDeliveries(trx, [
      {
        organization_id: organizationId,
        id,
        endpoint_id: endpointId,
        event_id: original.event_id,
        event_type: original.event_type,
        lead_id: original.lead_id,
        status: 'pending',
        attempts: 0,
        next_attempt_at: at,
        lease_until: null,
        last_status_code: null,
        last_error: null,
        created_at: at,
        updated_at: at,
        delivered_at: null,
      },
    ]);
  });
  return id;
}
