import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../platform/deps.js';
import { Channel, withErrors } from '../platform/http/schemas.js';
import { handleEmailEvent } from './email-events.js';
import { handleInbound } from './inbound.js';

const InboundBody = Type.Object(
  {
    channel: Channel,
    from: Type.String({ minLength: 1, maxLength: 320, description: 'Sender phone (sms, voice) or email address' }),
    to: Type.Optional(Type.String({ maxLength: 320 })),
    text: Type.String({ minLength: 1, maxLength: 20_000 }),
    subject: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const InboundReply = Type.Object({
  message: Type.String(),
  leadId: Type.Union([Type.String(), Type.Null()]),
  messageId: Type.Union([Type.String(), Type.Null()]),
  action: Type.String({
    description: 'unmatched | opted_out | do_not_contact | resubscribed | help | conversation | ignored',
  }),
});

/** Inbound messages from any provider or gateway that is not built in. */
export const inboundRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/inbound',
      {
        schema: {
          tags: ['conversation'],
          summary: 'Record a message a lead sent (any provider)',
          body: InboundBody,
          response: withErrors({ 200: InboundReply }, 'invalid_phone'),
        },
      },
      async (req) => {
        const { channel, from, to, text, subject } = req.body;
        const result = await handleInbound(deps, req.auth.organizationId, {
          channel,
          from,
          to: to ?? null,
          text,
          subject: channel === 'email' ? (subject ?? null) : null,
          actor: `key:${req.auth.keyId}`,
        });
        return { message: 'Inbound message received.', ...result };
      },
    );
  };

const EmailEventBody = Type.Object(
  {
    event: Type.Union([Type.Literal('bounce'), Type.Literal('complaint')], {
      description: 'bounce (hard bounces only) or complaint',
    }),
    email: Type.String({
      minLength: 3,
      maxLength: 320,
      pattern: '^[^@\\s]+@[^@\\s]+$',
      description: 'the recipient address the provider reports',
    }),
    detail: Type.Optional(Type.String({ maxLength: 1000, description: "the provider's diagnostic or feedback type" })),
    status: Type.Optional(
      Type.String({
        maxLength: 16,
        pattern: '^[245](\\.\\d{1,3}\\.\\d{1,3}|\\d\\d)$',
        description:
          "a bounce's DSN status (5.1.1) or SMTP reply code (550): 5.x.x / 5xx is a hard bounce (opted out, the address unreachable), 4.x.x / 4xx a soft one (nothing changes); absent: hard",
      }),
    ),
  },
  { additionalProperties: false },
);

export const EmailEventReply = Type.Object({
  message: Type.String(),
  leadId: Type.Union([Type.String(), Type.Null()]),
  action: Type.String({
    description:
      'opted_out (a lead holds the address) | suppressed (no lead does; the address stays suppressed) | soft_bounce (a temporary failure: nothing changed)',
  }),
});

/** Hard bounces and spam complaints from the email provider (its webhook, or a relay of it). */
export const emailEventRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/inbound/emailEvents',
      {
        schema: {
          tags: ['conversation'],
          summary: 'Report a hard bounce or a spam complaint (opts the address out of email)',
          body: EmailEventBody,
          response: withErrors({ 200: EmailEventReply }),
        },
      },
      async (req) => {
        const result = await handleEmailEvent(deps, req.auth.organizationId, req.body);
        return { message: 'Email event recorded.', ...result };
      },
    );
  };
