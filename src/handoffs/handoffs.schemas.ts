import { Type, type Static } from '@sinclair/typebox';
import { WEEKDAYS } from '../settings/settings.schemas.js';

const ClockTime = Type.String({
  pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
  description: 'HH:MM, 24-hour',
  errorMessage: 'must be a time of day written HH:MM (24-hour), like 09:00',
});
const Weekday = Type.Union(
  WEEKDAYS.map((d) => Type.Literal(d)),
  { description: 'sun, mon, tue, wed, thu, fri or sat' },
);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const WorkingHours = Type.Object(
  {
    days: Type.Array(Weekday, {
      minItems: 1,
      maxItems: 7,
      uniqueItems: true,
      description: 'local weekdays the rep works',
    }),
    start: ClockTime,
    end: ClockTime,
  },
  {
    additionalProperties: false,
    description:
      "read in the rep's timeZone (the organization's when null); an end before the start runs over midnight",
  },
);

export const Rep = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    role: Type.String(),
    phone: Nullable(Type.String({ description: "E.164: the rep's own phone, where SMS alerts go" })),
    capacity: Nullable(Type.Integer({ description: 'open hand-offs at once; null: no limit' })),
    workingHours: Nullable(WorkingHours),
    timeZone: Nullable(Type.String()),
    isAway: Type.Boolean(),
  },
  { $id: 'Rep' },
);

export const RepsReply = Type.Object({ users: Type.Array(Type.Ref(Rep)) });
export const UserIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const UpdateRepBody = Type.Object(
  {
    phone: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 40 }))),
    capacity: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 10_000 }))),
    workingHours: Type.Optional(Nullable(WorkingHours)),
    timeZone: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64 }))),
    isAway: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateRepInput = Static<typeof UpdateRepBody>;

export const SetOwnerBody = Type.Object(
  {
    userId: Nullable(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'a user of the organization; null: nobody owns the lead',
      }),
    ),
  },
  { additionalProperties: false },
);
export const OwnerReply = Type.Object({ leadId: Type.String(), owner: Nullable(Type.String()) });

export const RaiseHandoffBody = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })) },
  { additionalProperties: false },
);

export const AckBody = Type.Object(
  {
    userId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'who acknowledges, with an API key (a console session is its own user)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const HandoffStatus = Type.Union([Type.Literal('open'), Type.Literal('acknowledged'), Type.Literal('closed')]);

export const Handoff = Type.Object(
  {
    id: Type.String(),
    leadId: Type.String(),
    ownerId: Nullable(Type.String()),
    raisedAt: Type.String({ format: 'date-time' }),
    reason: Nullable(Type.String()),
    status: HandoffStatus,
    acknowledgedAt: Nullable(Type.String({ format: 'date-time' })),
    acknowledgedBy: Nullable(Type.String()),
    firstTouchAt: Nullable(Type.String({ format: 'date-time' })),
    firstTouchKind: Nullable(Type.String({ description: 'acknowledgement, reply or call' })),
    secondsToFirstTouch: Nullable(Type.Number()),
    escalationLevel: Type.Integer({ description: '0: first owner; 1: the next rep; 2: the admins' }),
    leadName: Type.Optional(Type.String({ description: "the lead's name (GET /v1/handoffs)" })),
  },
  { $id: 'Handoff' },
);

const Stats = {
  count: Type.Integer(),
  touched: Type.Integer({ description: 'hand-offs a person has touched' }),
  p50Seconds: Nullable(Type.Number({ description: 'median seconds from hand-off to first human touch' })),
  p90Seconds: Nullable(Type.Number()),
};

export const ListHandoffsQuery = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'raised at or after' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'raised before' })),
    ownerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    status: Type.Optional(HandoffStatus),
  },
  { additionalProperties: false },
);
export type ListHandoffsInput = Static<typeof ListHandoffsQuery>;

export const ListHandoffsReply = Type.Object({
  handoffs: Type.Array(Type.Ref(Handoff)),
  stats: Type.Object({
    overall: Type.Object(Stats),
    byOwner: Type.Array(Type.Object({ ownerId: Nullable(Type.String()), ...Stats })),
  }),
});
