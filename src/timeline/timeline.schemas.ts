import { Type, type Static } from '@sinclair/typebox';
import { NextToken } from '../platform/http/schemas.js';

/** The types the hosted service documents for GET /leads/{leadId}/events, and Parley's own COMPLIANCE_BLOCKED (the reference shows it too). */
export const EVENT_TYPES = ['MESSAGE', 'CALL', 'EMAIL', 'TOOL_CALL', 'CUSTOM', 'COMPLIANCE_BLOCKED'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const ListEventsQuery = Type.Object({
  since: Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'Required. ISO 8601 timestamp: events whose updatedAt is at or after it (e.g. 2026-05-14T15:00:00Z)',
    }),
  ),
  types: Type.Optional(
    Type.String({
      maxLength: 200,
      description: `Comma-separated event types to include (${EVENT_TYPES.join(', ')}); all when absent. A page may hold fewer than limit events even when more exist: paginate with nextToken.`,
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, description: 'Events per page; default 100, at most 1000' }),
  ),
  nextToken: Type.Optional(Type.String({ maxLength: 512, description: 'Opaque cursor from the previous page' })),
});
export type ListEventsInput = Static<typeof ListEventsQuery>;

const Direction = Type.Union([Type.Literal('INBOUND'), Type.Literal('OUTBOUND')]);

/** MESSAGE (sms), EMAIL and CALL (voice): the hosted service's fields, then Parley's. */
const MessageData = Type.Object({
  direction: Direction,
  content: Type.Object({ text: Type.String() }),
  isAiGenerated: Type.Boolean(),
  deliveryChannel: Type.Union([Type.Literal('SMS'), Type.Literal('EMAIL'), Type.Literal('CALL')]),
  owner: Type.Union([Type.Literal('user'), Type.Literal('lead')]),
  status: Type.String({ description: 'scheduled, sending, sent, delivered, failed, received, ...' }),
  statusCode: Type.Union([Type.String(), Type.Null()], {
    description: 'CONTACT_HOURS while a send waits for the window',
  }),
  statusReason: Type.Union([Type.String(), Type.Null()]),
  scheduledTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  durationSeconds: Type.Optional(
    Type.Union([Type.Number(), Type.Null()], { description: 'CALL only: not measured by Parley (null)' }),
  ),
});

/** CALL for a live call itself (src/calls/): its direction, duration and outcome; its utterances are CALL messages. */
const CallData = Type.Object({
  kind: Type.Literal('call'),
  callId: Type.String(),
  direction: Direction,
  durationSeconds: Type.Union([Type.Number(), Type.Null()]),
  outcome: Type.Union([Type.String(), Type.Null()], {
    description: 'human, voicemail, no-answer, busy, failed, completed, transferred, opted-out, missed, ...',
  }),
  status: Type.String(),
  summary: Type.Union([Type.String(), Type.Null()]),
  transferTo: Type.Union([Type.String(), Type.Null()]),
});

const BlockedData = Type.Object({
  channel: Type.Union([Type.Literal('sms'), Type.Literal('email'), Type.Literal('call')], {
    description: 'The hosted service spells voice `call`',
  }),
  reason: Type.String({
    description:
      'Why the gate stopped it: OPTED_OUT, OPTED_OUT_BEFORE_SEND, DNC, AI_OFF, FREQUENCY_CAP, EXTERNAL_CHECK, NO_ADDRESS, UNREACHABLE',
  }),
  source: Type.Union([Type.Literal('http'), Type.Literal('agent')], {
    description: 'http: a send the organization asked for through the API; agent: one the AI wrote',
  }),
  triggeredBy: Type.Union([Type.Literal('user'), Type.Literal('llm')]),
  messageId: Type.String({ format: 'uuid' }),
  reasonText: Type.Union([Type.String(), Type.Null()], { description: 'The reason as a sentence' }),
  content: Type.Object({ text: Type.String() }),
  externalCheck: Type.Optional(
    Type.Object(
      { detail: Type.String(), reason: Type.Union([Type.String(), Type.Null()]), latencyMs: Type.Number() },
      {
        description: "EXTERNAL_CHECK only: the organization's check's answer",
      },
    ),
  ),
});

const ToolCallData = Type.Object({
  kind: Type.Union([Type.Literal('turn'), Type.Literal('opening')], {
    description: "turn: the agent answering a lead message; opening: the agent writing a profile's opening message",
  }),
  tools: Type.Array(Type.String(), { description: 'The tools (actions) applied, in order' }),
  status: Type.String({
    description: 'turn: pending, done, skipped, failed; opening: composing, scheduled, skipped, failed',
  }),
  error: Type.Union([Type.String(), Type.Null()]),
  triggerMessageId: Type.Optional(Type.String({ format: 'uuid' })),
  profile: Type.Optional(Type.String()),
  messageId: Type.Optional(Type.Union([Type.String({ format: 'uuid' }), Type.Null()])),
});

const CustomData = Type.Object({
  name: Type.Union([Type.Literal('context'), Type.Literal('command')], {
    description: 'addContext: a context note, or a command for the AI',
  }),
  text: Type.String(),
  consumedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'command: when the AI carried it out',
  }),
});

const AppointmentData = Type.Object({
  name: Type.Literal('appointment', {
    description: 'an appointment of the lead (docs/appointments.md), in its current state',
  }),
  appointmentId: Type.String(),
  status: Type.Union([Type.Literal('booked'), Type.Literal('cancelled'), Type.Literal('no_show')]),
  start: Type.String({ format: 'date-time' }),
  end: Type.String({ format: 'date-time' }),
  timeZone: Type.String(),
  ownerId: Type.Union([Type.String(), Type.Null()]),
  provider: Type.Union([Type.Literal('embedded'), Type.Literal('calcom')]),
});

export const LeadEvent = Type.Object({
  id: Type.String({ description: 'Stable: with type, the key of the event' }),
  roomId: Type.String({ description: 'The lead id' }),
  orgId: Type.String(),
  type: Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))),
  timestamp: Type.String({ format: 'date-time', description: 'When it happened' }),
  updatedAt: Type.String({
    format: 'date-time',
    description: 'When it last changed (the order of the list, and what since compares)',
  }),
  data: Type.Union([MessageData, BlockedData, ToolCallData, CustomData, CallData, AppointmentData], {
    description: 'Shape chosen by type',
  }),
});
export type LeadEventView = Static<typeof LeadEvent>;

export const ListEventsReply = Type.Object({ events: Type.Array(LeadEvent), nextToken: NextToken });
