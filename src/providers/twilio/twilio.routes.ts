import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../platform/deps.js';
import { DomainError, Forbidden } from '../../platform/errors.js';
import { validTwilioSignature } from './signature.js';
import { EMPTY_RESPONSE, OPTED_OUT_HANG_UP, THANK_AND_HANG_UP, TWIML_CONTENT_TYPE } from './twiml.js';
import type { InboundPipeline } from '../inbound-pipeline.js';
import { applyStatus, receiveSms, receiveSpeech } from './twilio.service.js';

const FORM = 'application/x-www-form-urlencoded';

class TwilioNotConfigured extends DomainError<'not_configured'> {
  constructor() {
    super('not_configured');
  }
}

const PhoneField = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
const Sid = Type.Optional(Type.String({ maxLength: 64 }));

// Twilio sends many more parameters (AccountSid, NumMedia, FromCity, ...): all are signed, none refused.
const SmsBody = Type.Object(
  {
    From: PhoneField('The lead'),
    To: PhoneField('Our sending number'),
    Body: Type.Optional(Type.String({ maxLength: 20_000 })),
    MessageSid: Sid,
  },
  { additionalProperties: true },
);
const GatherBody = Type.Object(
  {
    From: PhoneField('Our number on a call we placed'),
    To: PhoneField('The lead on a call we placed'),
    Direction: Type.Optional(Type.String({ maxLength: 32 })),
    CallSid: Sid,
    SpeechResult: Type.Optional(Type.String({ maxLength: 20_000 })),
  },
  { additionalProperties: true },
);
const StatusBody = Type.Object(
  {
    From: Type.Optional(Type.String({ maxLength: 64 })),
    To: Type.Optional(Type.String({ maxLength: 64 })),
    MessageSid: Sid,
    MessageStatus: Type.Optional(Type.String({ maxLength: 32 })),
    CallSid: Sid,
    CallStatus: Type.Optional(Type.String({ maxLength: 32 })),
    ErrorCode: Type.Optional(Type.String({ maxLength: 16 })),
  },
  { additionalProperties: true },
);

/**
 * Twilio's webhooks: inbound SMS, the speech a call gathered, delivery and call
 * status. They carry no API key (scopes.ts lists them as public): each request
 * is verified by its X-Twilio-Signature instead, before anything is read or
 * stored, and without a configured auth token nothing is accepted at all.
 * Form bodies are parsed in this plugin only; every other route stays JSON-only.
 * What a lead said goes to `inbound`, the pipeline app.ts passes in (providers/inbound-pipeline.ts).
 */
export const twilioRoutes =
  (deps: Deps, inbound: InboundPipeline, children: FastifyPluginAsyncTypebox[] = []): FastifyPluginAsyncTypebox =>
  async (app) => {
    // The parameters exactly as sent, in order and with repeats: the signature covers all of them.
    const signedParams = new WeakMap<FastifyRequest, [string, string][]>();

    app.removeAllContentTypeParsers();
    app.addContentTypeParser(FORM, { parseAs: 'string' }, (req, body, done) => {
      const pairs = [...new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))];
      signedParams.set(req, pairs);
      // Object.fromEntries defines own properties: a `__proto__` parameter is just a field.
      done(null, Object.fromEntries(pairs));
    });

    app.addHook('onRequest', async () => {
      if (!deps.config.twilio) throw new TwilioNotConfigured();
    });

    // After parsing, before validation: an unsigned request learns nothing, not even which field it lacks.
    app.addHook('preValidation', async (req) => {
      const twilio = deps.config.twilio;
      if (!twilio) throw new TwilioNotConfigured();
      // Twilio signs the URL it called: our public base URL, then the path and query as they reached us.
      const url = deps.config.publicUrl + req.url;
      if (!validTwilioSignature(twilio.authToken, url, signedParams.get(req) ?? [], req.headers['x-twilio-signature']))
        throw new Forbidden();
    });

    const hidden = { hide: true, tags: ['providers'] };

    app.post(
      '/providers/twilio/sms',
      { schema: { ...hidden, summary: 'Twilio inbound SMS webhook', body: SmsBody } },
      async (req, reply) => {
        await receiveSms(deps, inbound, req.body);
        return reply.type(TWIML_CONTENT_TYPE).send(EMPTY_RESPONSE);
      },
    );

    // Parley places no recorded call (say, gather one answer): a voice message is a live call (calls/). A
    // recorded call still in flight when a deployment upgrades from a version that placed them posts its answer
    // here; kept so that call ends politely rather than on Twilio's application error, and a "stop" said in it is
    // applied like any other. It can go once no supported upgrade starts from such a version (a call lasts
    // minutes: a deployment that ran this version for a day has none left).
    app.post(
      '/providers/twilio/voice/gather',
      { schema: { ...hidden, summary: 'Twilio <Gather> speech result', body: GatherBody } },
      async (req, reply) => {
        const heard = await receiveSpeech(deps, inbound, req.body);
        const optedOut =
          typeof heard === 'object' && (heard.action === 'opted_out' || heard.action === 'do_not_contact');
        return reply.type(TWIML_CONTENT_TYPE).send(optedOut ? OPTED_OUT_HANG_UP : THANK_AND_HANG_UP);
      },
    );

    app.post(
      '/providers/twilio/status',
      { schema: { ...hidden, summary: 'Twilio message and call status callback', body: StatusBody } },
      async (req, reply) => {
        await applyStatus(deps, req.body);
        return reply.type(TWIML_CONTENT_TYPE).send(EMPTY_RESPONSE);
      },
    );

    // More of Twilio's webhooks (live calls, calls/call-webhooks.routes.ts), given by the app: they share this plugin's form parsing and signature check.
    for (const child of children) await app.register(child);
  };
