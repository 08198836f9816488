import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { ErrorBody } from '../platform/http/schemas.js';
import { clearedSessionCookie, sessionCookie } from '../platform/auth/session-cookie.js';
import { closeSession } from '../users/sessions.service.js';
import { decoyHash } from '../users/passwords.js';
import { LoginBody, SessionReply } from './console.schemas.js';
import { login, newLoginThrottle, sessionView } from './login.service.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };

/** Sign in, who am I, sign out (docs/console.md). */
export const consoleSessionRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const throttle = newLoginThrottle(deps);
    // The hash an unknown email is checked against, made now: the first such sign-in is not the one slower answer.
    void decoyHash();

    app.post(
      '/login',
      {
        config: { signIn: true },
        schema: { hide: true, body: LoginBody, response: { 200: SessionReply, ...errors } },
      },
      async (req, reply) => {
        const done = await login(deps, throttle, req.body.email, req.body.password, req.ip);
        reply.header('set-cookie', sessionCookie(done.token, req.protocol === 'https'));
        return { user: done.user, csrfToken: done.csrfToken };
      },
    );

    app.get('/session', { schema: { hide: true, response: { 200: SessionReply, ...errors } } }, async (req) =>
      sessionView(req.consoleSession),
    );

    app.post(
      '/logout',
      { schema: { hide: true, response: { 204: { type: 'null' }, ...errors } } },
      async (req, reply) => {
        await closeSession(deps, req.consoleSession);
        reply.header('set-cookie', clearedSessionCookie(req.protocol === 'https'));
        return reply.code(204).send();
      },
    );
  };
