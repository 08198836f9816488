import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../platform/deps.js';
import { Channel, withErrors } from '../platform/http/schemas.js';
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

const InboundReply = Type.Object({
  message: Type.String(),
  leadId: Type.Union([Type.String(), Type.Null()]),
  messageId: Type.Union([Type.String(), Type.Null()]),
  action: Type.String({ description: 'unmatched | opted_out | do_not_contact | resubscribed | help | conversation | ignored' }),
});

/** Inbound messages from any provider or gateway that is not built in. */
export const inboundRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/inbound', {
    schema: { tags: ['conversation'], summary: 'Record a message a lead sent (any provider)', body: InboundBody, response: withErrors({ 200: InboundReply }) },
  }, async (req) => {
    const { channel, from, to, text, subject } = req.body;
    const body = channel === 'email' && subject ? `${subject}\n\n${text}` : text;
    const result = await handleInbound(deps, req.auth.organizationId, { channel, from, to: to ?? null, text: body });
    return { message: 'Inbound message received.', ...result };
  });
};
