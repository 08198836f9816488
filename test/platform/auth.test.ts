import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueKey, revokeKey } from '../../src/organizations/api-keys.service.js';
import { expectError, messageOf, sleep } from '../support/assert.js';
import { clientFor, createLead, describeEachDialect } from '../support/harness.js';
import { concretePath, registeredRoutes, sampleBody } from '../support/routes.js';

const FORBIDDEN = 'Forbidden';

describeEachDialect('authentication and scopes', (ctx) => {
  describe('403 {"message":"Forbidden"} for every key that may not', () => {
    it('a missing, empty or oversized key', async () => {
      const ts = ctx();
      expectError(await ts.raw('/v1/leads'), 403, FORBIDDEN);
      expectError(await ts.raw('/v1/leads', { headers: { 'x-api-key': '' } }), 403, FORBIDDEN);
      expectError(await clientFor(ts.url, `pk_live_${'x'.repeat(500)}`).get('/leads'), 403, FORBIDDEN);
      // Auth runs before the body is read: a keyless write is 403, not a validation error.
      expectError(
        await ts.raw('/v1/leads/create', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{bad',
        }),
        403,
        FORBIDDEN,
      );
    });

    it('an unknown key, and a key that differs from a real one in its last character', async () => {
      const ts = ctx();
      expectError(await clientFor(ts.url, 'pk_live_notarealkeyatall').get('/leads'), 403, FORBIDDEN);
      const real = ts.acme.key;
      const twisted = real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A');
      expectError(await clientFor(ts.url, twisted).get('/leads'), 403, FORBIDDEN);
    });

    it('a revoked key, once the key cache has expired', async () => {
      const ts = ctx();
      const client = await ts.clientWithScopes(['leads:read']);
      expect((await client.get('/leads')).status).toBe(200);
      const prefix = client.key.slice(0, 16);
      expect(await revokeKey(ts.server.store.db, prefix)).toBe(1);
      await sleep(ts.config.keyCacheMs + 200);
      expectError(await client.get('/leads'), 403, FORBIDDEN);
      // Other keys of the organization keep working.
      expect((await ts.acme.get('/leads')).status).toBe(200);
    });

    it('a key without the scope of the route', async () => {
      const ts = ctx();
      const settingsOnly = await ts.clientWithScopes(['settings:read']);
      expectError(await settingsOnly.get('/leads'), 403, FORBIDDEN);
      expectError(await settingsOnly.post('/leads/create', { firstName: 'A', phone: '+14155550100' }), 403, FORBIDDEN);
      expect((await settingsOnly.get('/settings')).status).toBe(200);
    });
  });

  it('a leads:read key is refused on every route outside its scope, and served on every leads:read route', async () => {
    const ts = ctx();
    const reader = await ts.clientWithScopes(['leads:read']);
    const leadId = await createLead(ts.acme);
    const before = (await ts.acme.get(`/leads/${leadId}`)).body;
    const routes = registeredRoutes(ts).filter((r) => r.scope !== 'public');
    expect(routes.length).toBeGreaterThanOrEqual(15);
    for (const route of routes) {
      // GET /leads/{id}/events requires `since`, as the hosted service's reference documents.
      const path = concretePath(route.url, leadId);
      const served =
        route.url.endsWith('/events') && !path.includes('since=') ? `${path}?since=2020-01-01T00:00:00Z` : path;
      const res = await reader.call(route.method, served, sampleBody(route.method, route.url));
      if (route.scope === 'leads:read') {
        // Served: the lead exists, so 200 everywhere but the lookup of a number no lead has, and the routes
        // whose id is not a lead's (an import's, a campaign's): 404, past the scope check all the same.
        const missing =
          route.url === '/v1/leads/lookup' ||
          route.url.startsWith('/v1/imports/') ||
          route.url === '/v1/campaigns/:id' ||
          route.url === '/v1/appointments/:id' ||
          route.url === '/v1/calls/:id';
        expect({ route: `${route.method} ${route.url}`, status: res.status }).toEqual({
          route: `${route.method} ${route.url}`,
          status: missing ? 404 : 200,
        });
      } else {
        expect({ route: `${route.method} ${route.url}`, status: res.status, body: res.body }).toEqual({
          route: `${route.method} ${route.url}`,
          status: 403,
          body: { message: FORBIDDEN, code: 'forbidden' },
        });
      }
    }
    // Nothing the refused writes named has changed.
    expect((await ts.acme.get(`/leads/${leadId}`)).body).toEqual(before);
  });

  it("answers another organization's lead exactly as a missing one, on every lead route", async () => {
    const ts = ctx();
    const leadId = await createLead(ts.acme, { email: 'iso@example.com', additionalInfo: { k: 1 } });
    const before = (await ts.acme.get(`/leads/${leadId}`)).body;
    const missing = randomUUID();
    const routes = registeredRoutes(ts).filter((r) => r.url.includes(':leadId'));
    expect(routes.length).toBeGreaterThanOrEqual(9);
    const normalised = (body: unknown, id: string) => JSON.parse(JSON.stringify(body).split(id).join('<id>'));
    for (const route of routes) {
      const body = sampleBody(route.method, route.url);
      const foreign = await ts.beta.call(route.method, concretePath(route.url, leadId), body);
      const absent = await ts.beta.call(route.method, concretePath(route.url, missing), body);
      const name = `${route.method} ${route.url}`;
      expect({ name, status: foreign.status, body: normalised(foreign.body, leadId) }).toEqual({
        name,
        status: absent.status,
        body: normalised(absent.body, missing),
      });
      expect({ name, status: foreign.status, message: messageOf(foreign) }).toEqual({
        name,
        status: 404,
        message: `Resource not found: Lead with id ${leadId}`,
      });
    }
    expect((await ts.acme.get(`/leads/${leadId}`)).body).toEqual(before);
  });

  it('issues keys for a new organization concurrently into one organization', async () => {
    const ts = ctx();
    const name = `concurrent-${randomUUID().slice(0, 8)}`;
    const issued = await Promise.all(
      Array.from({ length: 5 }, () => issueKey(ts.server.store.db, name, ['leads:read'])),
    );
    expect(new Set(issued.map((k) => k.organizationId)).size).toBe(1);
    const orgs = await ts.server.store.db.selectFrom('organizations').select('id').where('name', '=', name).execute();
    expect(orgs).toHaveLength(1);
    for (const k of issued) expect((await clientFor(ts.url, k.key).get('/leads')).status).toBe(200);
  });

  it('stores keys only as SHA-256 digests, behind the pk_live_ prefix', async () => {
    const ts = ctx();
    const rows = await ts.server.store.db.selectFrom('api_keys').selectAll().execute();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    const dump = JSON.stringify(rows);
    for (const key of [ts.acme.key, ts.beta.key]) {
      expect(key).toMatch(/^pk_live_[A-Za-z0-9_-]{43}$/);
      expect(dump).not.toContain(key);
      expect(dump).not.toContain(key.slice(16));
      const digest = createHash('sha256').update(key).digest('hex');
      const row = rows.find((r) => r.digest === digest);
      expect(row).toBeDefined();
      expect(row!.prefix).toBe(key.slice(0, 16));
    }
    for (const r of rows) {
      expect(r.digest).toMatch(/^[0-9a-f]{64}$/);
      expect(r.prefix).toMatch(/^pk_live_.{8}$/);
    }
  });
});

describeEachDialect(
  'rate limit',
  (ctx) => {
    it('answers the 6th request of a minute with 429 {"message":"Too Many Requests"} and Retry-After', async () => {
      const ts = ctx();
      expect(ts.config.rateLimitPerMinute).toBe(5);
      // The window is a calendar minute: do not start within 3 s of its end.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 57_000) await sleep(60_000 - intoMinute + 50);
      const client = await ts.clientWithScopes(['leads:read']);
      for (let i = 1; i <= 5; i++) expect((await client.get('/leads')).status, `request ${i}`).toBe(200);
      const sixth = await client.get('/leads');
      expectError(sixth, 429, 'Too Many Requests');
      const retryAfter = Number(sixth.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      // The limit is per key: another key of the same organization is unaffected.
      expect((await ts.acme.get('/leads')).status).toBe(200);
    });
  },
  { PARLEY_RATE_LIMIT: '5' },
);
