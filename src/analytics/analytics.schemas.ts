import { Type, type Static } from '@sinclair/typebox';

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'a UTC date, YYYY-MM-DD' });
const Format = Type.Optional(
  Type.Union([Type.Literal('json'), Type.Literal('csv')], {
    description: 'csv: the same answer as CSV (or send Accept: text/csv)',
  }),
);

export const GROUPS = ['day', 'profile', 'campaign', 'sendingNumber', 'source'] as const;
export type GroupBy = (typeof GROUPS)[number];

export const SummaryQuery = Type.Object(
  {
    from: Day,
    to: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'the last UTC date included, YYYY-MM-DD' }),
    groupBy: Type.Optional(
      Type.Union(
        GROUPS.map((g) => Type.Literal(g)),
        { description: 'day (default), profile, campaign, sendingNumber or source' },
      ),
    ),
    format: Format,
  },
  { additionalProperties: false },
);
export type SummaryQuery = Static<typeof SummaryQuery>;

export const RangeQuery = Type.Object({ from: Day, to: Day, format: Format }, { additionalProperties: false });
export type RangeQuery = Static<typeof RangeQuery>;

const Nullable = <T extends ReturnType<typeof Type.Number>>(t: T) => Type.Union([t, Type.Null()]);

const Percentiles = Type.Object(
  {
    count: Type.Integer({ description: 'leads measured' }),
    p50: Nullable(Type.Number()),
    p90: Nullable(Type.Number()),
    p95: Nullable(Type.Number()),
  },
  { description: 'milliseconds; exact below 100 ms, otherwise at most 3 % below the exact value (docs/analytics.md)' },
);

const Funnel = {
  leads: Type.Integer({ description: 'leads created' }),
  contacted: Type.Integer({ description: 'leads whose first message was accepted by the provider' }),
  delivered: Type.Integer({ description: 'leads with a first delivery report' }),
  replied: Type.Integer(),
  hot: Type.Integer(),
  qualified: Type.Integer(),
  booked: Type.Integer(),
  optedOut: Type.Integer(),
  failed: Type.Integer({ description: 'conversation messages that failed or were undelivered' }),
  speedToLead: Type.Object(
    {
      firstSend: Percentiles,
      firstDelivery: Percentiles,
    },
    { description: 'lead created to first send accepted by the provider, and to first delivery' },
  ),
};

export const SummaryGroup = Type.Object({
  key: Type.Union([Type.String(), Type.Null()], {
    description: 'the group: a day, profile, campaign id, sending number id or source; null for none',
  }),
  name: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: "groupBy=campaign only: the campaign's name; null for no campaign, or a campaign since deleted",
    }),
  ),
  ...Funnel,
});
export const SummaryReply = Type.Object({
  from: Type.String(),
  to: Type.String(),
  groupBy: Type.String(),
  groups: Type.Array(SummaryGroup),
  total: Type.Object(Funnel),
});
export type SummaryReply = Static<typeof SummaryReply>;

export const NumberReport = Type.Object({
  sendingNumberId: Type.Union([Type.String(), Type.Null()], {
    description: "null: the organization's own sending number (no pool)",
  }),
  number: Type.Union([Type.String(), Type.Null()]),
  sent: Type.Integer({ description: 'messages accepted by the provider' }),
  delivered: Type.Integer(),
  deliveredPercent: Type.Union([Type.Number(), Type.Null()]),
  failed: Type.Integer({ description: 'failed or undelivered' }),
  failuresByCode: Type.Array(
    Type.Object({
      code: Type.Union([Type.String(), Type.Null()]),
      class: Type.Union([Type.String(), Type.Null()]),
      count: Type.Integer(),
    }),
  ),
  failuresByClass: Type.Array(Type.Object({ class: Type.Union([Type.String(), Type.Null()]), count: Type.Integer() })),
});
export const DeliverabilityReply = Type.Object({
  from: Type.String(),
  to: Type.String(),
  numbers: Type.Array(NumberReport),
});
export type DeliverabilityReply = Static<typeof DeliverabilityReply>;

export const OpeningsQuery = Type.Object(
  { profile: Type.String({ minLength: 1, maxLength: 200 }), format: Format },
  { additionalProperties: false },
);
export type OpeningsQuery = Static<typeof OpeningsQuery>;

const RateSchema = Type.Object(
  { rate: Nullable(Type.Number()), low: Nullable(Type.Number()), high: Nullable(Type.Number()) },
  { description: 'a proportion of sent, with its 95 % Wilson interval' },
);
export const VariantReport = Type.Object({
  variant: Type.String(),
  weight: Type.Union([Type.Number(), Type.Null()], { description: 'its weight now; null for a variant since removed' }),
  sent: Type.Integer(),
  replied: Type.Integer(),
  qualified: Type.Integer(),
  booked: Type.Integer(),
  optedOut: Type.Integer(),
  rates: Type.Object({ replied: RateSchema, qualified: RateSchema, booked: RateSchema, optedOut: RateSchema }),
});
export const OpeningsReply = Type.Object({
  profile: Type.String(),
  variants: Type.Array(VariantReport),
  significant: Type.Boolean({
    description:
      "whether the best variant's reply rate is apart from every other's (95 % Wilson intervals not overlapping)",
  }),
  leader: Type.Union([Type.String(), Type.Null()], { description: 'the variant with the highest reply rate' }),
});
export type OpeningsReply = Static<typeof OpeningsReply>;
