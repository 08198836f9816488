import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../platform/deps.js';
import { DomainError, Forbidden } from '../platform/errors.js';
import { validTwilioSignature } from '../providers/twilio/signature.js';
import { DbCallLedger } from './call-ledger.js';
import { CallSession } from './call-session.js';

class TwilioNotConfigured extends DomainError<'not_configured'> {
  constructor() {
    super('not_configured');
  }
}

const RelayQuery = Type.Object({
  org: Type.String({ minLength: 1, maxLength: 200 }),
  call: Type.String({ minLength: 1, maxLength: 200 }),
});

/**
 * ConversationRelay's WebSocket (docs/voice.md). Twilio opens it with an
 * X-Twilio-Signature over the URL it connected to (`wss` from an https
 * public URL, `ws` from http, with our query) and no parameters: a handshake
 * without a valid one is refused with 403 before the upgrade, so nothing is
 * read or stored for it. The query names the organization and the call,
 * and being signed it cannot be altered.
 */
export const relayRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.addHook('onRequest', async (req) => {
      const twilio = deps.config.twilio;
      if (!twilio) throw new TwilioNotConfigured();
      const url = deps.config.publicUrl.replace(/^http/, 'ws') + req.url;
      if (!validTwilioSignature(twilio.authToken, url, [], req.headers['x-twilio-signature'])) throw new Forbidden();
    });

    app.get(
      '/providers/twilio/relay',
      {
        websocket: true,
        schema: {
          hide: true,
          tags: ['providers'],
          summary: 'Twilio ConversationRelay WebSocket',
          querystring: RelayQuery,
        },
      },
      (socket, req) => {
        const { org, call } = req.query;
        const session = new CallSession(
          deps,
          new DbCallLedger(deps, org, call),
          {
            send: (message) => {
              if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
            },
            close: () => socket.close(1000),
          },
          call,
        );
        socket.on('message', (data, isBinary) => {
          if (!isBinary) session.handle(data.toString());
        });
        socket.on('close', () => session.closed());
      },
    );
  };
