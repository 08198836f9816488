import { Type, type Static } from '@sinclair/typebox';
import { Channel, ChannelInput, NextToken, PageQuery } from '../platform/http/schemas.js';

export const Message = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    content: Type.Object({ text: Type.String() }),
    createdAt: Type.String({ format: 'date-time' }),
    owner: Type.Union([Type.Literal('user'), Type.Literal('lead')], {
      description: 'user: the organization side (AI or human); lead: the lead',
    }),
    isAiGenerated: Type.Boolean(),
    channel: Channel,
    direction: Type.Union([Type.Literal('outbound'), Type.Literal('inbound')]),
    status: Type.String({
      description:
        'Delivery state, e.g. scheduled, sending, sent, failed, blocked, received; in_doubt: the provider was called and its answer lost (a crash): never sent again blind, see statusCode',
    }),
    statusReason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why a send is blocked or waiting (e.g. lead is unsubscribed from sms)',
    }),
    statusCode: Type.Union([Type.String(), Type.Null()], {
      description:
        'The same as a code: OPTED_OUT, OPTED_OUT_BEFORE_SEND, DNC, AI_OFF, FREQUENCY_CAP, EXTERNAL_CHECK, NO_ADDRESS, UNREACHABLE (blocked), CONTACT_HOURS (waiting), SENDER_UNUSABLE (failed: the carrier refused the settings sendingNumber, docs/deliverability.md), or for in_doubt: RECONCILING (the worker is asking the provider) or NEEDS_OPERATOR (resolve it with POST /v1/leads/{leadId}/messages/{id}/resolve)',
    }),
    scheduledTime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    segments: Type.Optional(
      Type.Integer({
        description:
          'SMS segments (GSM-7: 160 or 153 characters each, UCS-2: 70 or 67) it was paced and sent as; absent for other channels and before it is handed over',
      }),
    ),
    errorCode: Type.Optional(
      Type.String({
        description:
          "the provider's error code of a failed send or delivery report, `twilio:30007` or `smtp:550`; absent when none (docs/deliverability.md)",
      }),
    ),
    errorClass: Type.Optional(
      Type.String({
        description: 'its class: opted_out, invalid, unreachable, filtered, unregistered_sender, transient or unknown',
      }),
    ),
  },
  { $id: 'Message' },
);
export type MessageView = Static<typeof Message>;

export const ListMessagesQuery = Type.Object({
  ...PageQuery,
  channel: Type.Optional(
    Type.Union(ChannelInput.anyOf, {
      description:
        'Only messages of this channel (sms, voice or email; call is voice). An addition: the reference lists every message.',
    }),
  ),
});
export type ListMessagesInput = Static<typeof ListMessagesQuery>;

export const ListMessagesReply = Type.Object({ messages: Type.Array(Type.Ref(Message)), nextToken: NextToken });
