import { Type, type Static } from '@sinclair/typebox';

const ClockTime = Type.String({
  pattern: '^([01]\\d|2[0-3]):[0-5]\\d$',
  description: 'HH:MM, 24-hour',
  errorMessage: 'must be a time of day written HH:MM (24-hour), like 08:00',
});

/**
 * The longest reply window an organization may set. The window says how late
 * an automated reply may trail the lead's message at night: minutes, not
 * hours, or a "reply" would be a fresh contact the lead did not start.
 */
export const MAX_REPLY_WINDOW_MINUTES = 60;

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const Weekday = Type.Union(
  WEEKDAYS.map((d) => Type.Literal(d)),
  { description: 'sun, mon, tue, wed, thu, fri or sat' },
);
const IsoDate = Type.String({
  pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$',
  description: 'YYYY-MM-DD',
  errorMessage: 'must be a date written YYYY-MM-DD, like 2026-12-25',
});
const Keyword = Type.String({
  minLength: 1,
  maxLength: 40,
  pattern: '\\S',
  description: 'a word or short phrase, matched as the whole message',
});

const FrequencyCap = Type.Object(
  {
    maxAutomatedPerDay: Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'automated messages (AI, openings, follow-ups) per lead in any rolling 24 hours',
    }),
  },
  { additionalProperties: false },
);

const ExternalCheckView = Type.Object({
  url: Type.String(),
  timeoutMs: Type.Integer(),
  failureMode: Type.Union([Type.Literal('closed'), Type.Literal('open')]),
  secretSet: Type.Boolean({ description: 'the secret is never shown again' }),
});

const ExternalCheckInput = Type.Object(
  {
    url: Type.String({ minLength: 8, maxLength: 2000, description: 'https URL the gate POSTs each automated send to' }),
    secret: Type.String({
      minLength: 16,
      maxLength: 200,
      description: 'signing secret (Standard Webhooks); a whsec_ value or any string of 16+ characters',
    }),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 30_000, default: 3000 })),
    failureMode: Type.Optional(
      Type.Union([Type.Literal('closed'), Type.Literal('open')], {
        description: 'closed (default): a failing check blocks the send; open: it allows it',
      }),
    ),
  },
  { additionalProperties: false },
);

/** When a campaign pauses itself for filtered sends (docs/deliverability.md). */
const FilteredPause = Type.Object(
  {
    percent: Type.Number({
      minimum: 0.1,
      maximum: 100,
      description: 'share of the window that, filtered, pauses the campaign (default 5)',
    }),
    window: Type.Integer({
      minimum: 10,
      maximum: 10_000,
      description: 'how many of the latest sends are looked at, per campaign and per sending number (default 200)',
    }),
  },
  { additionalProperties: false },
);
/** Who a hand-off goes to (src/handoffs/, docs/handoffs.md). */
const Assignment = Type.Object(
  {
    mode: Type.Union([Type.Literal('none'), Type.Literal('roundRobin')], {
      description:
        "none: hand-offs go to the lead's owner, if any; roundRobin: to the pool's available rep with the fewest open hand-offs",
    }),
    pool: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      maxItems: 200,
      uniqueItems: true,
      description: 'user ids of the reps taking part',
    }),
    on: Type.Optional(
      Type.Union([Type.Literal('handoff'), Type.Literal('creation')], {
        description: 'assign when the lead is handed off (default) or when it is created',
      }),
    ),
    ackWithinMinutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1440,
        description: 'unacknowledged this long, a hand-off escalates to the next rep, then to the admins (default 10)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AssignmentSettings = Static<typeof Assignment>;
const DayRanges = Type.Array(Type.Array(ClockTime, { minItems: 2, maxItems: 2, description: '[opens, closes]' }), {
  maxItems: 6,
});
export const WeeklyHours = Type.Object(
  {
    sun: Type.Optional(DayRanges),
    mon: Type.Optional(DayRanges),
    tue: Type.Optional(DayRanges),
    wed: Type.Optional(DayRanges),
    thu: Type.Optional(DayRanges),
    fri: Type.Optional(DayRanges),
    sat: Type.Optional(DayRanges),
  },
  {
    additionalProperties: false,
    description:
      'local opening hours per weekday, e.g. {"mon": [["09:00","12:00"],["13:00","17:00"]]}; a missing day is closed',
  },
);
const ReminderMinutes = Type.Array(Type.Integer({ minimum: 5, maximum: 14 * 24 * 60 }), {
  maxItems: 5,
  description: 'minutes before the start at which the lead is reminded',
});

const CalendarView = Type.Object({
  provider: Type.Union([Type.Literal('embedded'), Type.Literal('calcom')]),
  durationMinutes: Type.Integer(),
  ownerId: Type.Union([Type.String(), Type.Null()], {
    description: "whose calendar the agent books (a user id), or null: the organization's",
  }),
  timeZone: Type.Union([Type.String(), Type.Null()], { description: "zone of weeklyHours (null: the organization's)" }),
  weeklyHours: WeeklyHours,
  reminderMinutes: ReminderMinutes,
  profileReminderMinutes: Type.Record(Type.String(), ReminderMinutes, {
    description: 'per customer profile, replacing reminderMinutes',
  }),
  calcom: Type.Union([
    Type.Object({ baseUrl: Type.String(), eventTypeId: Type.Integer(), apiKeySet: Type.Boolean() }),
    Type.Null(),
  ]),
});

const CalendarInput = Type.Object(
  {
    provider: Type.Union([Type.Literal('embedded'), Type.Literal('calcom')]),
    durationMinutes: Type.Optional(Type.Integer({ minimum: 15, maximum: 480, multipleOf: 15 })),
    ownerId: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
    timeZone: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()])),
    weeklyHours: Type.Optional(WeeklyHours),
    reminderMinutes: Type.Optional(ReminderMinutes),
    profileReminderMinutes: Type.Optional(Type.Record(Type.String(), ReminderMinutes)),
    calcom: Type.Optional(
      Type.Union([
        Type.Object(
          {
            baseUrl: Type.String({
              minLength: 8,
              maxLength: 2000,
              description: 'Cal.com API base, e.g. https://api.cal.com (self-hosted: your instance)',
            }),
            apiKey: Type.String({ minLength: 1, maxLength: 500 }),
            eventTypeId: Type.Integer({ minimum: 1 }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);

const InboundLeads = Type.Object(
  {
    customerProfile: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'the customer profile of a lead made for an unknown sender',
    }),
    isAiOn: Type.Boolean({ description: 'whether the agent answers them (default true)' }),
  },
  { additionalProperties: false },
);

export const Settings = Type.Object(
  {
    smsVoiceOptOutCoupled: Type.Boolean({ description: 'When true, an SMS or voice opt-out unsubscribes both.' }),
    timeZone: Type.String({ description: 'IANA zone used for contact hours when the lead has none' }),
    contactHours: Type.Object({ start: ClockTime, end: ClockTime }),
    contactDays: Type.Array(Weekday, { description: 'local weekdays on which leads may be contacted' }),
    holidays: Type.Array(IsoDate, { description: 'local dates with no contact' }),
    regionalRules: Type.Boolean({
      description: 'apply stricter regional calling windows (US state rules) where the lead is; on by default',
    }),
    replyWindowMinutes: Type.Integer({
      description:
        "how long after the lead's own message a reply to it may go outside 08:00-21:00 where the lead is (default 15)",
    }),
    frequencyCap: Type.Union([FrequencyCap, Type.Null()], { description: 'null: no cap' }),
    optOutKeywords: Type.Array(Keyword, {
      description: 'opt-out words of the organization, on top of the built-in ones (which cannot be removed)',
    }),
    optInKeywords: Type.Array(Keyword, {
      description: 'opt-in words of the organization, on top of START, YES, UNSTOP',
    }),
    externalCheck: Type.Union([ExternalCheckView, Type.Null()], {
      description: 'the External Compliance Check, or null',
    }),
    helpText: Type.String({ description: 'Answer to the HELP / INFO keywords' }),
    stopConfirmation: Type.Object(
      { en: Type.String(), es: Type.String() },
      {
        description:
          "The one text confirming a lead's SMS opt-out, in the language the opt-out was written in (Spanish when it was Spanish, else English)",
      },
    ),
    sendingNumber: Type.Union([Type.String(), Type.Null()], {
      description:
        'The number SMS and calls go out from (E.164), and the one inbound Twilio webhooks are routed by; unique across organizations',
    }),
    sendingNumberUnusableAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'read only: when the carrier refused sendingNumber as a sender (docs/deliverability.md); while set, its sends fail with SENDER_UNUSABLE instead of going out. Null: not refused; changing sendingNumber clears it',
    }),
    sendingNumberUnusableCode: Type.Union([Type.String(), Type.Null()], {
      description:
        "read only: the carrier's refusal, as an error code (`twilio:30034`); null with sendingNumberUnusableAt",
    }),
    filteredPause: Type.Union([FilteredPause, Type.Null()], {
      description:
        'campaigns pause themselves when carriers filter this share of their latest sends (default 5 % of 200); null: never',
    }),
    assignment: Assignment,
    inboundLeads: Type.Union([InboundLeads, Type.Null()], {
      description:
        "a lead is made for an unknown sender who texts, emails or calls the organization's number (docs/leads.md); null (the default): they are recorded, never answered",
    }),
    calendar: Type.Optional(
      Type.Union([CalendarView, Type.Null()], {
        description: 'appointments (docs/appointments.md); absent or null: the agent does not book',
      }),
    ),
  },
  { $id: 'Settings' },
);
export type SettingsView = Static<typeof Settings>;

export const UpdateSettingsBody = Type.Object(
  {
    smsVoiceOptOutCoupled: Type.Optional(Type.Boolean()),
    timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    contactHours: Type.Optional(Type.Object({ start: ClockTime, end: ClockTime }, { additionalProperties: false })),
    contactDays: Type.Optional(Type.Array(Weekday, { minItems: 1, maxItems: 7, uniqueItems: true })),
    holidays: Type.Optional(Type.Array(IsoDate, { maxItems: 366, uniqueItems: true })),
    regionalRules: Type.Optional(Type.Boolean()),
    replyWindowMinutes: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_REPLY_WINDOW_MINUTES,
        errorMessage: `must be a whole number of minutes from 0 to ${MAX_REPLY_WINDOW_MINUTES}`,
      }),
    ),
    frequencyCap: Type.Optional(Type.Union([FrequencyCap, Type.Null()])),
    optOutKeywords: Type.Optional(Type.Array(Keyword, { maxItems: 50 })),
    optInKeywords: Type.Optional(Type.Array(Keyword, { maxItems: 50 })),
    externalCheck: Type.Optional(Type.Union([ExternalCheckInput, Type.Null()])),
    helpText: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    stopConfirmation: Type.Optional(
      Type.Object(
        {
          en: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
          es: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
        },
        {
          additionalProperties: false,
          minProperties: 1,
          description: 'Either language or both; the other keeps its text',
        },
      ),
    ),
    sendingNumber: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 32 }), Type.Null()])),
    filteredPause: Type.Optional(Type.Union([FilteredPause, Type.Null()])),
    assignment: Type.Optional(Assignment),
    inboundLeads: Type.Optional(
      Type.Union([
        Type.Object(
          {
            customerProfile: Type.Optional(InboundLeads.properties.customerProfile),
            isAiOn: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
    calendar: Type.Optional(Type.Union([CalendarInput, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateSettingsInput = Static<typeof UpdateSettingsBody>;
export type CalendarInputValue = Static<typeof CalendarInput>;
