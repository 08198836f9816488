import { Type, type Static } from '@sinclair/typebox';
import { Channel } from '../platform/http/schemas.js';

/**
 * GET /v1/leads filters and orders for inbox-like clients (the console). Any
 * of them makes the answer a filtered listing (lead-search.service.ts): each
 * lead then also carries lastMessage and needsAttention. Without them the
 * listing is exactly what it was.
 */
export const LeadSearchQuery = {
  sort: Type.Optional(
    Type.Union([Type.Literal('created'), Type.Literal('lastActivity')], {
      description:
        'created: oldest first (the default); lastActivity: newest activity first, leads without any activity last',
    }),
  ),
  search: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'A first or last name prefix ("ann", or "ann le" for first and last), a phone number or its beginning, an email or its beginning, or an exact externalLeadId; case-insensitive',
    }),
  ),
  aiOn: Type.Optional(Type.Boolean({ description: 'Only leads whose AI is on (true) or off (false)' })),
  tag: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Only leads carrying the tag of this name' }),
  ),
  profile: Type.Optional(
    Type.String({ minLength: 1, maxLength: 100, description: 'Only leads of this customer profile' }),
  ),
  hasMessages: Type.Optional(
    Type.Boolean({
      description:
        'true: only conversations (leads with at least one message, either way); false: only leads without any',
    }),
  ),
  needsAttention: Type.Optional(
    Type.Boolean({
      description:
        "true: only leads whose last message is from the lead, or whose AI is off (a handoff) with the AI's message the last one, so no person has answered yet; false: the others",
    }),
  ),
};
export type LeadSearchInput = { [K in keyof typeof LeadSearchQuery]?: Static<(typeof LeadSearchQuery)[K]> };

export const LastMessage = Type.Object({
  text: Type.String({ description: 'The first 200 characters' }),
  direction: Type.Union([Type.Literal('inbound'), Type.Literal('outbound')]),
  channel: Channel,
  at: Type.String({ format: 'date-time' }),
  isAiGenerated: Type.Boolean(),
  status: Type.String({
    description:
      "The message's state, as on GET /v1/leads/{id}/messages: received (the lead's), queued, scheduled, sent, delivered, failed, blocked, ...",
  }),
  purpose: Type.Union([Type.Literal('conversation'), Type.Literal('compliance'), Type.Literal('stop_confirmation')], {
    description:
      "conversation: the lead's, the agent's or a person's message; compliance and stop_confirmation: sent by Parley itself (an opt-out's confirmation)",
  }),
});

/** Present on each lead of a filtered listing (any of the parameters above). */
export const LeadSearchViewFields = {
  lastMessage: Type.Optional(
    Type.Union([LastMessage, Type.Null()], { description: "The lead's latest message (filtered listings only)" }),
  ),
  hasMessages: Type.Optional(
    Type.Boolean({
      description:
        'true: only conversations (leads with at least one message, either way); false: only leads without any',
    }),
  ),
  needsAttention: Type.Optional(
    Type.Boolean({ description: 'See the needsAttention parameter (filtered listings only)' }),
  ),
};
