import { Type, type Static } from '@sinclair/typebox';
import { NextToken, PageQuery } from '../platform/http/schemas.js';
import { FollowUpUpdateFields, FollowUpViewFields } from '../followups/followups.schemas.js';
import { AdditionalInfo } from '../lead-records/additional-info.js';
import { LeadSearchQuery, LeadSearchViewFields } from './lead-search.schemas.js';

const SubscriptionState = Type.Union([
  Type.Literal('subscribed'),
  Type.Literal('unsubscribed'),
  Type.Literal('unavailable'),
]);

export const Tag = Type.Object({ id: Type.String(), name: Type.String(), condition: Type.String() });

export const Lead = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    firstName: Type.String(),
    lastName: Type.String(),
    phone: Type.Union([Type.String(), Type.Null()], { description: 'E.164, with a leading +' }),
    email: Type.Union([Type.String(), Type.Null()]),
    customerProfile: Type.String(),
    additionalInfo: AdditionalInfo,
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    lastActivityAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
    hasReplied: Type.Boolean(),
    isHot: Type.Boolean(),
    isQualified: Type.Boolean(),
    isBooked: Type.Boolean({ description: 'the lead has a booked appointment to come (docs/appointments.md)' }),
    isUnsubscribed: Type.Boolean(),
    isAiOn: Type.Boolean(),
    isDoNotContact: Type.Boolean(),
    tags: Type.Array(Tag),
    summary: Type.Union([Type.String(), Type.Null()]),
    timeZone: Type.Union([Type.String(), Type.Null()]),
    externalLeadId: Type.Union([Type.String(), Type.Null()]),
    subscriptions: Type.Object({ sms: SubscriptionState, voice: SubscriptionState, email: SubscriptionState }),
    ...FollowUpViewFields,
    owner: Type.Union([Type.String(), Type.Null()], {
      description: "the user id of the lead's owner (PUT /v1/leads/{id}/owner, or hand-off assignment); null: nobody",
    }),
  },
  { $id: 'Lead' },
);
export type LeadView = Static<typeof Lead>;

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Email = Type.String({ format: 'email', maxLength: 320 });
const PhoneInput = Type.String({ minLength: 1, maxLength: 40 });
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. America/Chicago' });
const ExternalId = Type.String({ minLength: 1, maxLength: 200 });

export const CreateLeadBody = Type.Object(
  {
    firstName: Name,
    lastName: Type.Optional(Type.String({ maxLength: 200 })),
    phone: Type.Optional(PhoneInput),
    email: Type.Optional(Email),
    customerProfile: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    timeZone: Type.Optional(TimeZone),
    additionalInfo: Type.Optional(AdditionalInfo),
    externalLeadId: Type.Optional(ExternalId),
    isAiOn: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type CreateLeadInput = Static<typeof CreateLeadBody>;

export const CreateLeadReply = Type.Object({ message: Type.String(), id: Type.String() });

/** Only writable fields; anything else (id, timestamps, subscription state) is a 400. */
export const UpdateLeadBody = Type.Object(
  {
    firstName: Type.Optional(Name),
    lastName: Type.Optional(Type.String({ maxLength: 200 })),
    phone: Type.Optional(Type.Union([PhoneInput, Type.Null()])),
    email: Type.Optional(Type.Union([Email, Type.Null()])),
    timeZone: Type.Optional(Type.Union([TimeZone, Type.Null()])),
    externalLeadId: Type.Optional(Type.Union([ExternalId, Type.Null()])),
    additionalInfo: Type.Optional(AdditionalInfo),
    summary: Type.Optional(Type.Union([Type.String({ maxLength: 20_000 }), Type.Null()])),
    isHot: Type.Optional(Type.Boolean()),
    isQualified: Type.Optional(Type.Boolean()),
    ...FollowUpUpdateFields,
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateLeadInput = Static<typeof UpdateLeadBody>;

/** The reference's answer, `{"message": "Lead updated successfully."}`, with the updated lead's fields beside it (Parley's addition). */
export const UpdateLeadReply = Type.Object({ message: Type.String(), ...Lead.properties });

export const ListLeadsQuery = Type.Object({
  createdSince: Type.Optional(Type.String({ format: 'date-time' })),
  updatedSince: Type.Optional(Type.String({ format: 'date-time' })),
  ...PageQuery,
  ...LeadSearchQuery,
});
export type ListLeadsInput = Static<typeof ListLeadsQuery>;

/** A lead in the list: the reference's `deleted: false` and `deletedAt: null` beside its fields. */
const ListedLead = Type.Intersect([
  Type.Ref(Lead),
  Type.Object({ deleted: Type.Literal(false), deletedAt: Type.Null(), ...LeadSearchViewFields }),
]);

/** An erased lead in the list (createdSince/updatedSince listings): its id and the flag only; its personal data is gone. */
const DeletedLead = Type.Object(
  { id: Type.String(), deleted: Type.Literal(true), deletedAt: Type.String({ format: 'date-time' }) },
  { description: 'An erased lead: treat it as a removal', additionalProperties: false },
);

export const ListLeadsReply = Type.Object({
  leads: Type.Array(Type.Union([ListedLead, DeletedLead])),
  nextToken: NextToken,
});

export const LookupQuery = Type.Object({ phone: Type.String({ minLength: 1, maxLength: 40 }) });
export const LookupReply = Type.Object({ id: Type.String() });

const TagIds = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 1000,
  description: 'Ids of tags of the organization (an empty list is allowed)',
});

/** An empty tagIds removes nothing and succeeds (docs/contract.md). */
export const RemoveTagsBody = Type.Object({ tagIds: TagIds });

/** PUT /leads/{leadId}/tags: the lead's tags become exactly these. */
export const ReplaceTagsBody = Type.Object({ tagIds: TagIds }, { additionalProperties: false });

/** The reference's answer: the tags now on the lead (`condition` is Parley's addition). */
export const ReplaceTagsReply = Type.Object({ tags: Type.Array(Tag) });
