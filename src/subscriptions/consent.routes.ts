import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TString } from '@sinclair/typebox';
import type { Deps } from '../platform/deps.js';
import { LeadIdParams, NextToken, PageQuery, withErrors } from '../platform/http/schemas.js';
import { exportConsent, leadConsent } from './consent.service.js';

export const ConsentRecord = Type.Object({
  id: Type.String({ format: 'uuid' }),
  leadId: Type.Union([Type.String(), Type.Null()], {
    description: 'null for an address no lead held (e.g. the link of an erased lead)',
  }),
  channel: Type.String({ description: 'sms, voice or email' }),
  action: Type.Union([Type.Literal('optOut'), Type.Literal('optIn')]),
  source: Type.String({ description: 'api, keyword, phrase, link, bounce, complaint, voice, ai, dnc' }),
  reason: Type.Union([Type.String(), Type.Null()], {
    description: 'for email: MANUAL, COMPLAINT, BOUNCE, UNSUBSCRIBE_LINK',
  }),
  actor: Type.Union([Type.String(), Type.Null()], {
    description:
      'A code or an id, never free text: key:<id>, key:session:<user id> (the console), twilio:<sid>, link, agent, email-provider:bounce:hard, email-provider:complaint',
  }),
  actorLabel: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description:
        "For a person to read: the key's prefix and name (`key pk_live_ab12… (CRM)`), or the console user's email; null for other actors and for keys or users since removed",
    }),
  ),
  inboundMessageId: Type.Union([Type.String(), Type.Null()], {
    description: 'the lead message that carried the request',
  }),
  addressDigest: Type.String({ description: 'keyed digest of the address (the address itself is never kept here)' }),
  createdAt: Type.String({ format: 'date-time' }),
});

const Range = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'start of the range (inclusive), ISO 8601' }),
    to: Type.String({ format: 'date-time', description: 'end of the range (exclusive), ISO 8601' }),
  },
  { additionalProperties: false },
);

/** The 200 answer is text/csv (a stream, never serialised); errors stay JSON like everywhere else. */
const CSV_ANSWER = {
  description:
    'CSV with a header line: id,leadId,channel,action,source,reason,actor,inboundMessageId,addressDigest,createdAt',
  content: { 'text/csv': { schema: Type.String() } },
};

export const consentRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/leads/:leadId/consent',
      {
        schema: {
          tags: ['compliance'],
          summary: "The lead's consent ledger: every opt-out and opt-in, oldest first, with who or what caused it",
          params: LeadIdParams,
          querystring: Type.Object({ ...PageQuery }),
          response: withErrors(
            { 200: Type.Object({ records: Type.Array(ConsentRecord), nextToken: NextToken }) },
            'invalid_date',
            'invalid_range',
            'invalid_cursor',
          ),
        },
      },
      async (req) => leadConsent(deps, req.auth.organizationId, req.params.leadId, req.query),
    );

    app.get(
      '/consent/export',
      {
        schema: {
          tags: ['compliance'],
          summary: "The organization's consent ledger for a time range, as CSV (streamed)",
          querystring: Range,
          response: withErrors({ 200: CSV_ANSWER as unknown as TString }, 'invalid_date', 'invalid_range'),
        },
      },
      async (req, reply) => {
        const csv = exportConsent(deps, req.auth.organizationId, req.query.from, req.query.to);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="consent.csv"')
          .send(csv);
      },
    );
  };
