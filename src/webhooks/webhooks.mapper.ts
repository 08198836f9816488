import type { DeliveryRow } from './deliveries.repository.js';
import type { EndpointRow } from './endpoints.repository.js';
import type { WebhookDeliveryView, WebhookEndpointView } from './webhooks.schemas.js';

function parseEvents(text: string | null): string[] | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.map(String) : null;
}

/** The secret is left out on purpose: only create and rotateSecret add it to their answer. */
export function toEndpointView(row: EndpointRow): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: parseEvents(row.events),
    enabled: Number(row.enabled) === 1,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toDeliveryView(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: Number(row.attempts),
    lastStatusCode: row.last_status_code === null ? null : Number(row.last_status_code),
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deliveredAt: row.delivered_at,
  };
}
