import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { CallSession } from '../calls/call-session.js';
import {
  closeSandbox,
  findSandbox,
  openSandbox,
  playText,
  SandboxLedger,
  sandboxGreeting,
  type Sandbox,
} from '../calls/playground.js';
import type { Deps } from '../platform/deps.js';
import { Forbidden } from '../platform/errors.js';
import { ErrorBody } from '../platform/http/schemas.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const Params = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const text = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '\\S' });

export const PlaygroundReply = Type.Object({
  id: Type.String(),
  profile: Type.String(),
  lead: Type.Object({ firstName: Type.String(), lastName: Type.String() }),
  messages: Type.Array(
    Type.Object({
      id: Type.String(),
      from: Type.Union([Type.Literal('lead'), Type.Literal('agent')]),
      channel: Type.String(),
      text: Type.String(),
      at: Type.String(),
    }),
  ),
  notes: Type.Array(Type.Object({ at: Type.String(), text: Type.String() })),
  state: Type.Object({
    tags: Type.Array(Type.String()),
    summary: Type.Union([Type.String(), Type.Null()]),
    isHot: Type.Boolean(),
    isQualified: Type.Boolean(),
  }),
});
export const TextReply = Type.Object({ replies: Type.Array(Type.String()), playground: PlaygroundReply });
export const CallReply = Type.Object({ greeting: Type.String(), relayPath: Type.String() });

const view = (s: Sandbox) => ({
  id: s.id,
  profile: s.profile,
  lead: s.lead,
  messages: s.messages,
  notes: s.notes,
  state: { tags: s.tags.map((t) => t.name), summary: s.summary, isHot: s.isHot, isQualified: s.isQualified },
});

/** A WebSocket handshake from another site's page (cross-site WebSocket hijacking) is refused; SameSite=Strict already keeps the cookie off it. */
function sameOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (!origin || !host) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/**
 * The playground (docs/voice.md): a sandbox conversation with a profile's
 * agent, for the signed-in user only. Text turns are plain requests; a
 * simulated call is the browser playing ConversationRelay: it asks for the
 * call (the greeting, as Twilio is given it in the TwiML), opens the
 * WebSocket and speaks the relay's JSON protocol (setup, prompt, interrupt,
 * dtmf), answered by the very session code of a real call
 * (calls/call-session.ts) over a ledger that writes nothing.
 */
export const consolePlaygroundRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/playground',
      {
        schema: {
          hide: true,
          body: Type.Object(
            {
              profile: text(100),
              firstName: Type.Optional(Type.String({ maxLength: 100 })),
              lastName: Type.Optional(Type.String({ maxLength: 100 })),
            },
            { additionalProperties: false },
          ),
          response: { 201: PlaygroundReply, ...errors },
        },
      },
      async (req, reply) => {
        const { organizationId, userId } = req.consoleSession;
        return reply.code(201).send(view(await openSandbox(deps, organizationId, userId, req.body)));
      },
    );

    app.get(
      '/playground/:id',
      { schema: { hide: true, params: Params, response: { 200: PlaygroundReply, ...errors } } },
      async (req) => {
        const { organizationId, userId } = req.consoleSession;
        return view(findSandbox(deps, organizationId, userId, req.params.id));
      },
    );

    app.post(
      '/playground/:id/messages',
      {
        schema: {
          hide: true,
          params: Params,
          body: Type.Object({ text: text(2000) }, { additionalProperties: false }),
          response: { 200: TextReply, ...errors },
        },
      },
      async (req) => {
        const { organizationId, userId } = req.consoleSession;
        const sandbox = findSandbox(deps, organizationId, userId, req.params.id);
        const replies = await playText(deps, sandbox, req.body.text.trim());
        return { replies, playground: view(sandbox) };
      },
    );

    app.post(
      '/playground/:id/call',
      { schema: { hide: true, params: Params, response: { 200: CallReply, ...errors } } },
      async (req) => {
        const { organizationId, userId } = req.consoleSession;
        const sandbox = findSandbox(deps, organizationId, userId, req.params.id);
        return {
          greeting: await sandboxGreeting(deps, sandbox),
          relayPath: `/console/api/playground/${sandbox.id}/relay`,
        };
      },
    );

    app.delete(
      '/playground/:id',
      { schema: { hide: true, params: Params, response: { 204: { type: 'null' }, ...errors } } },
      async (req, reply) => {
        const { organizationId, userId } = req.consoleSession;
        closeSandbox(deps, organizationId, userId, req.params.id);
        return reply.code(204).send();
      },
    );

    app.get(
      '/playground/:id/relay',
      {
        websocket: true,
        schema: { hide: true, params: Params },
        preValidation: async (req) => {
          if (!sameOrigin(req.headers.origin, req.headers.host)) throw new Forbidden();
          const { organizationId, userId } = req.consoleSession;
          findSandbox(deps, organizationId, userId, req.params.id);
        },
      },
      (socket, req) => {
        const { organizationId, userId } = req.consoleSession;
        const sandbox = findSandbox(deps, organizationId, userId, req.params.id);
        const session = new CallSession(
          deps,
          new SandboxLedger(deps, sandbox),
          {
            send: (message) => {
              if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
            },
            close: () => socket.close(1000),
          },
          `playground:${sandbox.id.slice(0, 8)}`,
        );
        socket.on('message', (data, isBinary) => {
          if (!isBinary) session.handle(data.toString());
        });
        socket.on('close', () => session.closed());
      },
    );
  };
