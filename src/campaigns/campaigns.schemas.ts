import { Type, type Static } from '@sinclair/typebox';
import { NextToken, PageQuery } from '../platform/http/schemas.js';

const TagName = Type.String({ minLength: 1, maxLength: 100 });
const InfoValue = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]);

/**
 * Which leads a campaign enrolls: every criterion given must hold (AND); an
 * empty filter takes every lead of the organization. Unknown fields are
 * refused, so a misspelt criterion never silently widens the campaign.
 */
export const CampaignFilter = Type.Object(
  {
    tags: Type.Optional(
      Type.Array(TagName, {
        minItems: 1,
        maxItems: 50,
        description: 'The lead carries every one of these tags (by name)',
      }),
    ),
    anyTags: Type.Optional(
      Type.Array(TagName, {
        minItems: 1,
        maxItems: 50,
        description: 'The lead carries at least one of these tags (by name)',
      }),
    ),
    customerProfile: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: "The lead's current customer profile" }),
    ),
    createdAfter: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after this instant' })),
    createdBefore: Type.Optional(Type.String({ format: 'date-time', description: 'Created before this instant' })),
    additionalInfo: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 100 }), InfoValue, {
        maxProperties: 20,
        description: "Each key of the lead's additionalInfo equals the value given (same JSON type)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CampaignFilterInput = Static<typeof CampaignFilter>;

export const CreateCampaignBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    filter: CampaignFilter,
    customerProfile: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The profile each lead is switched to; its opening message is what goes out',
    }),
    startAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'Not before this instant; now when absent' }),
    ),
    dailyCap: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      description: "Openings handed to the send path per day, in the organization's time zone",
    }),
  },
  { additionalProperties: false },
);
export type CreateCampaignInput = Static<typeof CreateCampaignBody>;

export const CAMPAIGN_STATES = ['scheduled', 'running', 'paused', 'completed', 'cancelled'] as const;
const Status = Type.Union(CAMPAIGN_STATES.map((s) => Type.Literal(s)));

export const CampaignCounts = Type.Object({
  enrolled: Type.Integer({ description: 'Leads in the snapshot; the buckets below add up to it' }),
  pending: Type.Integer({ description: 'Not yet handed to the send path' }),
  queued: Type.Integer({
    description: 'Opening handed to the send path, not out yet (e.g. waiting for contact hours)',
  }),
  sent: Type.Integer({ description: 'Opening went out, no reply or opt-out since' }),
  blocked: Type.Integer({ description: 'Never sent: see blockedByReason' }),
  blockedByReason: Type.Record(Type.String(), Type.Integer(), {
    description: 'Blocked leads by code: OPTED_OUT, DNC, NO_ADDRESS, AI_OFF, ...',
  }),
  replied: Type.Integer({ description: 'The lead wrote after it was enrolled' }),
  optedOut: Type.Integer({ description: 'The lead opted out (or was put on DNC) after it was enrolled' }),
  failed: Type.Integer(),
  cancelled: Type.Integer({ description: 'Left pending when the campaign was cancelled' }),
  messagesSent: Type.Integer({ description: 'Openings that went out, whatever happened after' }),
});
export type CampaignCountsView = Static<typeof CampaignCounts>;

export const Campaign = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  status: Status,
  customerProfile: Type.String(),
  filter: CampaignFilter,
  startAt: Type.String({ format: 'date-time' }),
  dailyCap: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
  completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  cancelledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  pauseCode: Type.Union([Type.String(), Type.Null()], {
    description:
      'why the campaign paused itself (FILTERED: carriers filter its sends; SENDER_UNUSABLE: the carrier refused the settings sendingNumber; docs/deliverability.md); null when paused by hand or not paused',
  }),
  pauseReason: Type.Union([Type.String(), Type.Null()], { description: 'the same, in a sentence' }),
});
export type CampaignView = Static<typeof Campaign>;

export const CampaignWithCounts = Type.Composite([Campaign, Type.Object({ counts: CampaignCounts })]);
export type CampaignWithCountsView = Static<typeof CampaignWithCounts>;

export const ListCampaignsQuery = Type.Object({ ...PageQuery });
export type ListCampaignsInput = Static<typeof ListCampaignsQuery>;

export const ListCampaignsReply = Type.Object({ campaigns: Type.Array(Campaign), nextToken: NextToken });
