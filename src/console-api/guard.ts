import type { FastifyInstance } from 'fastify';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { checkSession, csrfRefused, sessionToken } from '../platform/auth/session-cookie.js';
import { resolveSession, type ConsoleSession } from '../users/sessions.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession: ConsoleSession;
  }
  interface FastifyContextConfig {
    /** /console/api/login: the one console route reachable without a session. */
    signIn?: boolean;
    /** Users and API keys: admins only. */
    adminOnly?: boolean;
  }
}

/**
 * Every /console/api route but login needs a live session (401 otherwise); a
 * state change also needs the session's CSRF token (403), and admin routes an
 * admin (403). Registered inside the /console/api scope only.
 */
export function registerSessionGuard(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('consoleSession', null as unknown as ConsoleSession);
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config?.signIn) return;
    const { session, refused } = await checkSession(
      (token) => resolveSession(deps, token),
      sessionToken(request.headers.cookie),
      request.method,
      request.headers['x-csrf-token'],
    );
    if (refused === 'csrf') throw csrfRefused();
    if (!session) throw new DomainError('unauthorized');
    if (config?.adminOnly && session.role !== 'admin') throw new DomainError('admin_only');
    request.consoleSession = session;
  });
}
