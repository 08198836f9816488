import { Type, type Static } from '@sinclair/typebox';
import { WeeklyHours } from '../settings/settings.schemas.js';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const AppointmentIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
export const UserIdParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 200 }) });

export const Appointment = Type.Object(
  {
    id: Type.String(),
    leadId: Type.String(),
    ownerId: Nullable(Type.String()),
    start: DateTime,
    end: DateTime,
    timeZone: Type.String({ description: "the lead's zone the slot was offered in" }),
    status: Type.Union([Type.Literal('booked'), Type.Literal('cancelled'), Type.Literal('no_show')]),
    provider: Type.Union([Type.Literal('embedded'), Type.Literal('calcom')]),
    externalId: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    createdByTurnId: Nullable(Type.String()),
    reminders: Type.Array(
      Type.Object({ kind: Type.String(), dueAt: DateTime, status: Type.String(), messageId: Nullable(Type.String()) }),
    ),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Appointment' },
);
export type AppointmentView = Static<typeof Appointment>;

export const BookBody = Type.Object(
  {
    start: Type.String({ format: 'date-time', description: 'ISO 8601 instant' }),
    durationMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 480 })),
    ownerId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    notes: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export const RescheduleBody = Type.Object(
  {
    start: Type.String({ format: 'date-time' }),
    durationMinutes: Type.Optional(Type.Integer({ minimum: 5, maximum: 480 })),
    notes: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  },
  { additionalProperties: false },
);

export const CancelBody = Type.Optional(
  Type.Object({ reason: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false }),
);

export const ListQuery = Type.Object(
  { from: DateTime, to: DateTime, ownerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
  { additionalProperties: false },
);

export const SlotsQuery = Type.Object(
  {
    from: Type.Optional(DateTime),
    to: Type.Optional(DateTime),
    ownerId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const SlotsReply = Type.Object({
  timeZone: Type.String(),
  slots: Type.Array(
    Type.Object({
      start: DateTime,
      end: DateTime,
      label: Type.String({ description: "the start in the lead's zone and language" }),
    }),
  ),
});

export const AvailabilityBody = Type.Object(
  {
    timeZone: Type.String({ minLength: 1, maxLength: 64 }),
    weeklyHours: WeeklyHours,
  },
  { additionalProperties: false },
);
export const AvailabilityReply = Type.Object({
  userId: Type.String(),
  timeZone: Type.String(),
  weeklyHours: AvailabilityBody.properties.weeklyHours,
  updatedAt: DateTime,
});
