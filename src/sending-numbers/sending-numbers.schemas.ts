import { Type, type Static } from '@sinclair/typebox';

export const KINDS = ['longCode', 'tollFree', 'shortCode'] as const;
export type Kind = (typeof KINDS)[number];

/** Carrier practice per kind, in segments per second: the organization may lower or raise it. */
export const DEFAULT_RATE: Record<Kind, number> = { longCode: 1, tollFree: 3, shortCode: 30 };

const KindField = Type.Union(
  KINDS.map((k) => Type.Literal(k)),
  { description: 'longCode (default 1 segment/s), tollFree (3/s) or shortCode (30/s)' },
);
const ChannelField = Type.Union([Type.Literal('sms'), Type.Literal('voice')], {
  description: 'sms (default) or voice',
});
const Rate = Type.Number({
  minimum: 0.01,
  maximum: 1000,
  description: 'segments (voice: calls) per second this number may send; defaults by kind',
});
const DailyCap = Type.Union([Type.Integer({ minimum: 1, maximum: 100_000_000 }), Type.Null()], {
  description: 'segments (voice: calls) per UTC day; null: no cap',
});

export const SendingNumber = Type.Object({
  id: Type.String({ format: 'uuid' }),
  number: Type.String({ description: 'E.164' }),
  kind: KindField,
  channel: ChannelField,
  ratePerSecond: Type.Number(),
  dailyCap: Type.Union([Type.Integer(), Type.Null()]),
  assignedLeads: Type.Integer({ description: 'leads that hear from this number (sticky sender)' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  unusableAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'when the carrier refused it as a sender (an unregistered 10DLC or unverified toll-free number): the pool no longer assigns it; null while usable',
  }),
  unusableCode: Type.Union([Type.String(), Type.Null()], {
    description: 'the provider error that retired it, `twilio:30034`',
  }),
});
export type SendingNumberView = Static<typeof SendingNumber>;

export const ListSendingNumbersReply = Type.Object({ sendingNumbers: Type.Array(SendingNumber) });

/** Any text is accepted in the path: an unknown id is a 404, never a 400. */
export const SendingNumberParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const CreateSendingNumberBody = Type.Object(
  {
    number: Type.String({
      minLength: 1,
      maxLength: 32,
      description: 'the number, E.164 or national (normalised like settings sendingNumber)',
    }),
    kind: KindField,
    channel: Type.Optional(ChannelField),
    ratePerSecond: Type.Optional(Rate),
    dailyCap: Type.Optional(DailyCap),
  },
  { additionalProperties: false },
);
export type CreateSendingNumberInput = Static<typeof CreateSendingNumberBody>;

export const UpdateSendingNumberBody = Type.Object(
  { kind: Type.Optional(KindField), ratePerSecond: Type.Optional(Rate), dailyCap: Type.Optional(DailyCap) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateSendingNumberInput = Static<typeof UpdateSendingNumberBody>;
