import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { Forbidden, TooManyRequests } from '../errors.js';
import { findActiveKeyByDigest } from './api-keys.repository.js';
import { digestKey, sameDigest } from './keys.js';
import { RateLimiter } from './rate-limit.js';
import { SEND_SCOPE, maySend, scopeFor, sendingRoutes, type Scope, type SendsWhen } from './scopes.js';
import { checkSession, csrfRefused, sessionToken, type SessionResolver } from './session-cookie.js';

export interface AuthContext {
  organizationId: string;
  keyId: string;
  scopes: readonly string[];
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

/**
 * Resolved keys are kept briefly so a hot key costs no query; revocation shows within keyCacheMs.
 * Keyed by the key's SHA-256, never the key itself. A hit needs no second comparison: the map found
 * the entry by that very digest, and a client cannot steer a digest's bytes to time the lookup.
 */
class KeyCache {
  private entries = new Map<string, { ctx: AuthContext; until: number }>();
  constructor(private readonly ttlMs: number) {}
  get(digest: string, now: number): AuthContext | undefined {
    const e = this.entries.get(digest);
    if (!e) return undefined;
    if (e.until <= now) {
      this.entries.delete(digest);
      return undefined;
    }
    return e.ctx;
  }
  set(digest: string, ctx: AuthContext, now: number) {
    if (this.ttlMs <= 0) return;
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(digest, { ctx, until: now + this.ttlMs });
  }
}

/** The database lookup behind a cache miss (the caller has already hashed the key and missed the cache). */
async function resolveKey(deps: Deps, cache: KeyCache, digest: string): Promise<AuthContext | undefined> {
  const now = Date.now();
  const key = await findActiveKeyByDigest(deps.db, digest);
  if (!key || !sameDigest(key.digest, digest)) return undefined;
  const ctx = { organizationId: key.organizationId, keyId: key.id, scopes: key.scopes };
  cache.set(digest, ctx, now);
  return ctx;
}

/** After validation: a request that would make a message go out needs SEND_SCOPE too (scopes.ts, sendingRoutes). */
function sendCheck(sends: Exclude<SendsWhen, 'service'>) {
  return async (request: FastifyRequest) => {
    if (!request.auth || maySend(request.auth.scopes)) return;
    if (sends !== 'always' && !sends({ body: request.body, query: request.query })) return;
    request.log.info(
      { status: 403, needed: SEND_SCOPE },
      `refused: the request would send a message and the key lacks the scope ${SEND_SCOPE}`,
    );
    throw new Forbidden();
  };
}

/**
 * Every /v1 route is authenticated and scope-checked here, before the body is
 * read. Missing, unknown, revoked and out-of-scope keys all get the same 403.
 */
export function registerAuthentication(app: FastifyInstance, deps: Deps, sessions?: SessionResolver): void {
  const cache = new KeyCache(deps.config.keyCacheMs);
  const limiter = new RateLimiter(deps.config.rateLimitPerMinute);

  app.decorateRequest('auth', null as unknown as AuthContext);

  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/v1')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      if (!scopeFor(m, route.url)) throw new Error(`route ${m} ${route.url} has no entry in platform/auth/scopes.ts`);
      const sends = sendingRoutes[`${m} ${route.url}`];
      // Appended before the idempotency hooks (registered after this one): a refused request claims no key.
      if (sends && sends !== 'service')
        route.preHandler = [...[route.preHandler ?? []].flat(), sendCheck(sends)] as typeof route.preHandler;
    }
  });

  // Callback style with a synchronous path: a cached key costs no promise, no query.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const url = request.routeOptions.url;
    if (!url || !url.startsWith('/v1')) return done();
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const needed = scopeFor(method, url);
    if (needed === 'public') return done();
    const header = request.headers['x-api-key'];
    const admit = (ctx: AuthContext | undefined) => {
      // The answer is one 403 for every case (docs/contract.md); the log tells the operator which, and where to look.
      if (!ctx)
        request.log.info(
          { status: 403 },
          'refused: not an active key in this database (parley keys list --org NAME shows the keys it holds)',
        );
      else if (!needed || !ctx.scopes.includes(needed as Scope))
        request.log.info({ status: 403, needed }, `refused: the key lacks the scope ${needed}`);
      if (!ctx || !needed || !ctx.scopes.includes(needed as Scope)) return done(new Forbidden());
      const wait = limiter.take(ctx.keyId);
      if (wait > 0) return done(new TooManyRequests(wait));
      request.auth = ctx;
      done();
    };
    // No key but a console session cookie: the user's organization, with the scopes of the user's role.
    const token = header === undefined && sessions ? sessionToken(request.headers.cookie) : undefined;
    if (token && sessions) {
      checkSession(sessions, token, method, request.headers['x-csrf-token']).then(({ session, refused }) => {
        if (refused === 'csrf') {
          request.log.info({ status: 403 }, 'refused: a session request without its CSRF token');
          return done(csrfRefused());
        }
        if (!session) request.log.info({ status: 403 }, 'refused: the console session is unknown, ended or revoked');
        admit(
          session && {
            organizationId: session.organizationId,
            keyId: `session:${session.userId}`,
            scopes: session.scopes,
          },
        );
      }, done);
      return;
    }
    if (typeof header !== 'string' || header.length === 0 || header.length > 200) {
      request.log.info({ status: 403 }, 'refused: no x-api-key header');
      return done(new Forbidden());
    }
    const digest = digestKey(header);
    const cached = cache.get(digest, Date.now());
    if (cached) return admit(cached);
    resolveKey(deps, cache, digest).then(admit, done);
  });
}
