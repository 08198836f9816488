import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { EventType } from '../events/outbox.repository.js';
import { NextToken, PageQuery } from '../platform/http/schemas.js';

/** Every type the outbox emits; the type check below fails when events/outbox.repository.ts gains one this list lacks. */
export const EVENT_TYPES = [
  'optOut',
  'resubscribed',
  'doNotContact',
  'message.sent',
  'message.received',
  'lead.additionalInfo.updated',
  'leadTagged',
  'notification',
  'message.delivered',
  'message.failed',
  'campaign.paused',
  'sendingNumber.unusable',
  'lead.created',
  'call.completed',
  'call.transferred',
  'appointment.booked',
  'appointment.rescheduled',
  'appointment.cancelled',
] as const satisfies readonly EventType[];
const everyEventTypeListed: Exclude<EventType, (typeof EVENT_TYPES)[number]> extends never ? true : false = true;
void everyEventTypeListed;

/** Any text is accepted in the path: an unknown or impossible id is a 404, never a 400. */
export const WebhookIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
export const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 200 }),
});

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https:// URL; http:// and private, loopback or link-local targets only when the operator allows them',
});
const Events = Type.Array(Type.String({ enum: [...EVENT_TYPES] }), {
  minItems: 1,
  maxItems: EVENT_TYPES.length * 4,
  description: `Event types to receive (${EVENT_TYPES.join(', ')}); omitted or null: every type except Parley's outcome events (lead.created, message.delivered, message.failed, campaign.paused, sendingNumber.unusable), which an endpoint receives only when it lists them`,
});
const Description = Type.String({ maxLength: 500 });
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

const endpointFields = {
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  description: Nullable(Type.String()),
  events: Nullable(Type.Array(Type.String())),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String()),
  createdAt: DateTime,
  updatedAt: DateTime,
};

/** The endpoint as every answer shows it: never the secret. */
export const WebhookEndpoint = Type.Object(endpointFields);
export type WebhookEndpointView = Static<typeof WebhookEndpoint>;

/** Only the create and rotateSecret answers carry the signing secret. */
export const WebhookEndpointWithSecret = Type.Object({
  ...endpointFields,
  secret: Type.String({ description: '`whsec_` + base64 of 32 random bytes; shown only in this answer' }),
});

export const ListWebhooksReply = Type.Object({ webhooks: Type.Array(WebhookEndpoint) });

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Type.Optional(Nullable(Events)), description: Type.Optional(Nullable(Description)) },
  { additionalProperties: false },
);
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Nullable(Events)),
    enabled: Type.Optional(Type.Boolean()),
    description: Type.Optional(Nullable(Description)),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;

const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]);

export const WebhookDelivery = Type.Object({
  id: Type.String({ format: 'uuid' }),
  eventId: Type.String(),
  eventType: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer(),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  nextAttemptAt: Nullable(DateTime),
  createdAt: DateTime,
  updatedAt: DateTime,
  deliveredAt: Nullable(DateTime),
});
export type WebhookDeliveryView = Static<typeof WebhookDelivery>;

export const ListDeliveriesQuery = Type.Object({
  status: Type.Optional(DeliveryStatus),
  eventType: Type.Optional(Type.String({ enum: [...EVENT_TYPES], description: 'Only deliveries of this event type' })),
  leadId: Type.Optional(
    Type.String({ format: 'uuid', description: "Only deliveries of this lead's events (its data.leadId)" }),
  ),
  ...PageQuery,
});
export type ListDeliveriesInput = Static<typeof ListDeliveriesQuery>;

export const ListDeliveriesReply = Type.Object({ deliveries: Type.Array(WebhookDelivery), nextToken: NextToken });

export const WebhookDeliveryWithBody = Type.Object({
  ...WebhookDelivery.properties,
  body: Nullable(
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'The JSON body every attempt sends ({event, timestamp, data}); null once the event was erased',
      },
    ),
  ),
});

export const ReplayReply = Type.Object({ message: Type.String(), deliveryId: Type.String({ format: 'uuid' }) });
