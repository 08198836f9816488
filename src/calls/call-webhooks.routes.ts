import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { TWIML_CONTENT_TYPE, EMPTY_RESPONSE } from '../providers/twilio/twiml.js';
import type { Deps } from '../platform/deps.js';
import { organizationOf, UnknownNumber } from '../providers/twilio/twilio.service.js';
import {
  afterRelay,
  afterTransferDial,
  answerInboundCall,
  applyAmd,
  applyCallStatus,
  whisperFor,
} from './calls.service.js';

const CallQuery = Type.Object({
  org: Type.String({ minLength: 1, maxLength: 200 }),
  call: Type.String({ minLength: 1, maxLength: 200 }),
});
const field = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

/**
 * Twilio's callbacks of live calls. Registered inside the Twilio webhook
 * plugin (providers/twilio/twilio.routes.ts), so each is form-parsed and its
 * X-Twilio-Signature verified, over the URL with its query, before it is read.
 */
export const callWebhookRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const hidden = { hide: true, tags: ['providers'] };

    app.post(
      '/providers/twilio/voice',
      {
        schema: {
          ...hidden,
          summary: 'Twilio "A call comes in" webhook',
          body: Type.Object(
            {
              From: Type.String({ minLength: 1, maxLength: 64 }),
              To: Type.String({ minLength: 1, maxLength: 64 }),
              CallSid: field(64),
            },
            { additionalProperties: true },
          ),
        },
      },
      async (req, reply) => {
        const organizationId = await organizationOf(deps, req.body.To);
        if (!organizationId) throw new UnknownNumber(req.body.To);
        return reply.type(TWIML_CONTENT_TYPE).send(await answerInboundCall(deps, organizationId, req.body));
      },
    );

    app.post(
      '/providers/twilio/relay/action',
      {
        schema: {
          ...hidden,
          summary: 'ConversationRelay <Connect action> callback',
          querystring: CallQuery,
          body: Type.Object(
            { CallSid: field(64), SessionStatus: field(32), HandoffData: field(20_000) },
            { additionalProperties: true },
          ),
        },
      },
      async (req, reply) =>
        reply.type(TWIML_CONTENT_TYPE).send(await afterRelay(deps, req.query.org, req.query.call, req.body)),
    );

    app.post(
      '/providers/twilio/call-status',
      {
        schema: {
          ...hidden,
          summary: 'Live call status callback',
          querystring: CallQuery,
          body: Type.Object(
            { CallSid: field(64), CallStatus: field(32), CallDuration: field(16) },
            { additionalProperties: true },
          ),
        },
      },
      async (req, reply) => {
        await applyCallStatus(deps, req.query.org, req.query.call, req.body);
        return reply.type(TWIML_CONTENT_TYPE).send(EMPTY_RESPONSE);
      },
    );

    app.post(
      '/providers/twilio/amd',
      {
        schema: {
          ...hidden,
          summary: 'Asynchronous answering machine detection callback',
          querystring: CallQuery,
          body: Type.Object({ CallSid: field(64), AnsweredBy: field(32) }, { additionalProperties: true }),
        },
      },
      async (req, reply) => {
        await applyAmd(deps, req.query.org, req.query.call, req.body.AnsweredBy ?? 'unknown');
        return reply.type(TWIML_CONTENT_TYPE).send(EMPTY_RESPONSE);
      },
    );

    app.post(
      '/providers/twilio/whisper',
      {
        schema: {
          ...hidden,
          summary: 'What the person answering a warm transfer hears',
          querystring: CallQuery,
          body: Type.Object({ CallSid: field(64) }, { additionalProperties: true }),
        },
      },
      async (req, reply) => reply.type(TWIML_CONTENT_TYPE).send(await whisperFor(deps, req.query.org, req.query.call)),
    );

    app.post(
      '/providers/twilio/transfer-status',
      {
        schema: {
          ...hidden,
          summary: 'Warm transfer <Dial action> callback',
          querystring: CallQuery,
          body: Type.Object({ CallSid: field(64), DialCallStatus: field(32) }, { additionalProperties: true }),
        },
      },
      async (req, reply) =>
        reply
          .type(TWIML_CONTENT_TYPE)
          .send(await afterTransferDial(deps, req.query.org, req.query.call, req.body.DialCallStatus)),
    );
  };
