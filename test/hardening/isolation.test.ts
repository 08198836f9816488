import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, SEND_SCOPE, routeScopes, sendingRoutes, type Scope } from '../../src/platform/auth/scopes.js';
import { FAST_AGENT_ENV, messages, turns, until } from '../agent/helpers.js';
import { expectError, messageOf } from '../support/assert.js';
import { MIDDAY, useRealisticHours } from '../support/clock-hours.js';
import {
  createLead,
  describeEachDialect,
  uniquePhone,
  type ApiResponse,
  type Client,
  type TestServer,
} from '../support/harness.js';
import { Receiver } from '../support/receiver.js';
import { registeredRoutes, sampleBody, scopeTable, type RouteEntry } from '../support/routes.js';
import { FAST_WEBHOOKS, deliveriesOf, eventually } from '../support/webhooks.js';

/**
 * Tenant isolation and scopes, over every route of the one route -> scope
 * table (src/platform/auth/scopes.ts). test/platform/auth.test.ts covers the
 * lead routes and a read-only key; this suite covers every id- or name-taking
 * route, every list, and every scope.
 *
 * Each organization keeps realistic contact hours (08:00-21:00), not a 24-hour window: the server's
 * clock is set to midday where the leads are, so what the worlds send goes out because the gate
 * allows it, and each world checks that its send did go out.
 */

/** One organization's world: a lead with a conversation, an agent turn, notes, a profile, a webhook with deliveries, a DNC entry. */
interface World {
  client: Client;
  leadId: string;
  phone: string;
  email: string;
  profile: string;
  webhookId: string;
  deliveryIds: string[];
  dncPhone: string;
  marker: string;
}

async function buildWorld(client: Client, label: string, receiver: Receiver): Promise<World> {
  const marker = `${label}-${randomUUID().slice(0, 8)}`;
  await useRealisticHours(client);
  const profile = `${label}-secret-profile`;
  expect((await client.post('/customerProfiles', { name: profile, questions: [`${marker} question?`] })).status).toBe(
    201,
  );
  const hook = await client.post('/webhooks', { url: receiver.url });
  expect(hook.status).toBe(201);
  const phone = uniquePhone();
  const email = `${marker}@example.com`;
  const leadId = await createLead(client, {
    phone,
    email,
    customerProfile: profile,
    additionalInfo: { marker },
    externalLeadId: marker,
  });
  expect(
    (
      await client.post(`/leads/${leadId}/addContext`, {
        context: `${marker} note`,
        command: `send message: ${marker} commanded`,
      })
    ).status,
  ).toBe(200);
  const sent = await client.post(`/leads/${leadId}/sendMessage`, { message: `${marker} outbound` });
  expect(sent.status).toBe(200);
  // Inside the window at the server's midday: sent now, not held for the next opening.
  expect(
    (
      await until(
        () => messages(client, leadId),
        (ms) => ms.some((m) => m.id === sent.body.id && !['scheduled', 'sending'].includes(m.status)),
      )
    ).find((m) => m.id === sent.body.id),
  ).toMatchObject({ status: 'sent' });
  const heard = await client.post('/inbound', { channel: 'sms', from: phone, text: `${marker} hello` });
  expect(heard.body).toMatchObject({ leadId, action: 'conversation' });
  const dncPhone = uniquePhone();
  expect((await client.post('/dnc/register', { phone: dncPhone })).status).toBe(200);
  expect((await client.post(`/leads/${leadId}/unsubscribe`, { channels: ['email'] })).status).toBe(200);
  await until(
    () => turns(client, leadId),
    (t) => t.some((x) => x.status !== 'pending'),
  );
  const deliveries = await eventually(`deliveries of ${label}`, async () => {
    const all = await deliveriesOf(client, hook.body.id);
    return all.length >= 2 && all;
  });
  return {
    client,
    leadId,
    phone,
    email,
    profile,
    webhookId: hook.body.id,
    deliveryIds: deliveries.map((d) => d.id),
    dncPhone,
    marker,
  };
}

/** The path with each parameter taken from `values` (`/v1` dropped: clients add it). */
const pathOf = (url: string, values: Record<string, string>) =>
  url
    .replace(/^\/v1/, '')
    .replace(/:([A-Za-z]+)/g, (_m, name: string) => encodeURIComponent(values[name] ?? `no-${name}`));

/** A response with every occurrence of `ids` replaced by placeholders, so "foreign" and "missing" answers compare. */
/** The rows of a listing page (`leads` or `entries`), as plain records to compare by one key. */
const rowsOf = (body: object, field: string) => (body as Record<string, Record<string, string>[]>)[field]!;

const normalised = (res: ApiResponse, ids: Record<string, string>) => {
  let text = JSON.stringify(res.body ?? null);
  for (const [name, id] of Object.entries(ids)) text = text.split(id).join(`<${name}>`);
  return { status: res.status, body: JSON.parse(text) as unknown };
};

describeEachDialect(
  'tenant isolation and scopes',
  (ctx) => {
    const receiver = new Receiver();
    let a: World;
    let b: World;

    beforeAll(async () => {
      const ts = ctx();
      ts.clock.set(MIDDAY);
      await receiver.start();
      a = await buildWorld(ts.acme, 'a', receiver);
      b = await buildWorld(ts.beta, 'b', receiver);
      // Let the worker finish what the worlds set off (agent replies, sends, deliveries), so snapshots compare.
      for (const w of [a, b]) {
        let last = '';
        await eventually(
          'a quiet world',
          async () => {
            const now = JSON.stringify(await snapshot(w));
            const same = now === last;
            last = now;
            return same;
          },
          20_000,
          300,
        );
      }
      return () => receiver.stop();
    }, 60_000);

    const values = (w: World): Record<string, string> => ({
      leadId: w.leadId,
      id: w.webhookId,
      deliveryId: w.deliveryIds[0]!,
      name: w.profile,
    });
    const missing = () => ({
      leadId: randomUUID(),
      id: randomUUID(),
      deliveryId: randomUUID(),
      name: `missing-${randomUUID().slice(0, 8)}`,
    });

    describe("another organization's resource answers exactly as a missing one", () => {
      it('on every route of the scope table that takes an id or a name', async () => {
        const ts = ctx();
        const routes = registeredRoutes(ts).filter((r) => r.scope !== 'public' && r.url.includes(':'));
        expect(routes.length).toBeGreaterThanOrEqual(20);
        const aBefore = await snapshot(a);
        let mixedChecked = 0;
        for (const route of routes) {
          const name = `${route.method} ${route.url}`;
          const absentIds = missing();
          const body = sampleBody(route.method, route.url);
          // B's key, every parameter A's.
          const foreign = await b.client.call(route.method, pathOf(route.url, values(a)), body);
          const absent = await b.client.call(route.method, pathOf(route.url, absentIds), body);
          const params = [...route.url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
          const pick = (v: Record<string, string>) => Object.fromEntries(params.map((p) => [p, v[p]!]));
          expect({ name, ...normalised(foreign, pick(values(a))) }).toEqual({
            name,
            ...normalised(absent, pick(absentIds)),
          });
          expect({ name, status: foreign.status }).toEqual({ name, status: 404 });
          expect(messageOf(foreign), name).toMatch(/^Resource not found: \w+ with (id|name) /);
          if (params.length > 1) {
            // B's own parent, A's child: the child is as missing as one that never existed.
            const mixed = { ...values(b), deliveryId: a.deliveryIds[0]! };
            const mixedAbsent = { ...values(b), deliveryId: absentIds.deliveryId };
            const m1 = await b.client.call(route.method, pathOf(route.url, mixed), body);
            const m2 = await b.client.call(route.method, pathOf(route.url, mixedAbsent), body);
            expect({ name, ...normalised(m1, { deliveryId: a.deliveryIds[0]! }) }).toEqual({
              name,
              ...normalised(m2, { deliveryId: absentIds.deliveryId }),
            });
            expect(m1.status).toBe(404);
            mixedChecked += 1;
          }
        }
        // The branch above ran for each route with two parameters (a webhook's delivery), and there is at least one.
        expect(mixedChecked).toBe(routes.filter((r) => (r.url.match(/:[A-Za-z]+/g) ?? []).length > 1).length);
        expect(mixedChecked).toBeGreaterThan(0);
        // Nothing B aimed at A changed anything of A's.
        expect(await snapshot(a)).toEqual(aBefore);
      });

      it("by phone and by name: lookup, DNC check and remove, inbound, profile switch, create with A's profile", async () => {
        const unknownPhone = uniquePhone();
        const byPhone = (res: ApiResponse, phone: string) => normalised(res, { phone });
        // Lookup of A's lead phone.
        expect(byPhone(await b.client.get(`/leads/lookup?phone=${encodeURIComponent(a.phone)}`), a.phone)).toEqual(
          byPhone(await b.client.get(`/leads/lookup?phone=${encodeURIComponent(unknownPhone)}`), unknownPhone),
        );
        // A's DNC entry is not on B's list, and B cannot remove it.
        const check = await b.client.get(`/dnc/check?phone=${encodeURIComponent(a.dncPhone)}`);
        expect(check.body).toEqual({ phone: a.dncPhone, isDoNotContact: false });
        expect(byPhone(await b.client.post('/dnc/remove', { phone: a.dncPhone }), a.dncPhone)).toEqual(
          byPhone(await b.client.post('/dnc/remove', { phone: unknownPhone }), unknownPhone),
        );
        expect((await a.client.get(`/dnc/check?phone=${encodeURIComponent(a.dncPhone)}`)).body.isDoNotContact).toBe(
          true,
        );
        // A message "from" A's lead, recorded by B, matches nothing of A's.
        const before = (await a.client.get(`/leads/${a.leadId}/messages`)).body.messages.length;
        const heard = await b.client.post('/inbound', { channel: 'sms', from: a.phone, text: 'hello' });
        const heardUnknown = await b.client.post('/inbound', { channel: 'sms', from: unknownPhone, text: 'hello' });
        expect(heard.body).toMatchObject({ leadId: null, action: 'unmatched' });
        expect({ ...heard.body, messageId: null }).toEqual({ ...heardUnknown.body, messageId: null });
        expect((await a.client.get(`/leads/${a.leadId}/messages`)).body.messages).toHaveLength(before);
        // A's profile name is unknown to B, both to switch to and to create with.
        const profileAnswer = (res: ApiResponse, name: string) => normalised(res, { name });
        const ghost = `ghost-${randomUUID().slice(0, 8)}`;
        expect(
          profileAnswer(
            await b.client.post(`/leads/${b.leadId}/switchCustomerProfile`, { profile: a.profile }),
            a.profile,
          ),
        ).toEqual(
          profileAnswer(await b.client.post(`/leads/${b.leadId}/switchCustomerProfile`, { profile: ghost }), ghost),
        );
        expect(
          profileAnswer(
            await b.client.post('/leads/create', { firstName: 'X', phone: uniquePhone(), customerProfile: a.profile }),
            a.profile,
          ),
        ).toEqual(
          profileAnswer(
            await b.client.post('/leads/create', { firstName: 'X', phone: uniquePhone(), customerProfile: ghost }),
            ghost,
          ),
        );
        // Values unique only within an organization do not collide across: no 409 tells another organization that A has them.
        const gamma = await ctx().clientWithScopes([...SCOPES], 'gamma');
        expect((await gamma.post('/leads/create', { firstName: 'Same', phone: a.phone, email: a.email })).status).toBe(
          200,
        );
        expect((await gamma.post('/customerProfiles', { name: a.profile })).status).toBe(201);
        expect((await gamma.post('/dnc/register', { phone: a.dncPhone })).status).toBe(200);
      });
    });

    describe("no list returns another organization's rows", () => {
      /** Every page of a list, one row at a time where the route pages, so cursors are crossed too. */
      async function everyPage(client: Client, path: string, field: string): Promise<unknown[]> {
        const rows: unknown[] = [];
        let next: string | null = null;
        const paged = /\/leads(\?|$)|\/messages|\/agentTurns|\/deliveries|\/dnc(\?|$)/.test(path);
        for (let i = 0; i < 500; i++) {
          const sep = path.includes('?') ? '&' : '?';
          const url: string = paged
            ? `${path}${sep}limit=1${next ? `&nextToken=${encodeURIComponent(next)}` : ''}`
            : path;
          // A listing picked at run time: its answer is read as the page it is.
          const res = (await client.untyped('GET', url)) as ApiResponse<
            Record<string, unknown[]> & { nextToken?: string }
          >;
          expect(res.status, url).toBe(200);
          rows.push(...(res.body[field] ?? []));
          next = paged ? (res.body.nextToken ?? null) : null;
          if (!next) return rows;
        }
        throw new Error(`${path}: more than 500 pages`);
      }

      const lists = (w: World): [string, string][] => [
        ['/leads', 'leads'],
        [`/leads/${w.leadId}/messages`, 'messages'],
        [`/leads/${w.leadId}/agentTurns`, 'turns'],
        [`/leads/${w.leadId}/context`, 'notes'],
        ['/webhooks', 'webhooks'],
        [`/webhooks/${w.webhookId}/deliveries`, 'deliveries'],
        ['/dnc', 'entries'],
        ['/customerProfiles', 'profiles'],
      ];

      /** Strings that identify an organization's rows: ids, its marker (in texts, notes, emails, info), its phones. */
      const fingerprints = (w: World) => [w.leadId, w.webhookId, ...w.deliveryIds, w.marker, w.phone, w.dncPhone];

      it('for every list route, walked page by page, both ways', async () => {
        for (const [self, other] of [
          [a, b],
          [b, a],
        ] as const) {
          for (const [path, field] of lists(self)) {
            const rows = await everyPage(self.client, path, field);
            expect(rows.length, `${path} is empty: nothing was checked`).toBeGreaterThan(0);
            const dump = JSON.stringify(rows);
            for (const f of fingerprints(other))
              expect(dump.includes(f), `${path} of ${self.marker} holds ${f} of ${other.marker}`).toBe(false);
          }
        }
      });

      /**
       * A cursor is base64url of the last row's key (src/platform/http/pagination.ts, src/dnc/dnc.cursor.ts),
       * not bound to an organization: the API takes one minted by another organization as a position in the
       * caller's own list and answers 200 with the caller's rows after it. It is neither refused nor ignored,
       * and it never brings the other organization's rows.
       */
      it("a cursor taken from another organization's list answers 200 with exactly the caller's rows after that position", async () => {
        // B gets a second row on each list, so its first page of one row ends with a cursor. A gets rows made after B's
        // first, so B's cursor lands inside A's list: lead ids are UUIDv7 (creation order), uniquePhone() numbers grow.
        await createLead(b.client);
        expect((await b.client.post('/dnc/register', { phone: uniquePhone() })).status).toBe(200);
        const aLeadsAfter = [await createLead(a.client), await createLead(a.client)];
        const aPhonesAfter = [uniquePhone(), uniquePhone()];
        for (const phone of aPhonesAfter) expect((await a.client.post('/dnc/register', { phone })).status).toBe(200);

        const cases = [
          { path: '/leads', field: 'leads', key: 'id', aBefore: a.leadId, aAfter: aLeadsAfter },
          { path: '/dnc', field: 'entries', key: 'phone', aBefore: a.dncPhone, aAfter: aPhonesAfter },
        ] as const;
        for (const { path, field, key, aBefore, aAfter } of cases) {
          const foreignPage = await b.client.get(`${path}?limit=1`);
          expect(foreignPage.status).toBe(200);
          const token = foreignPage.body.nextToken as unknown;
          expect(typeof token, `${path}: B's first page ends without a cursor`).toBe('string');
          // The cursor stands after B's one row on that page.
          const position = rowsOf(foreignPage.body, field)[0]![key]!;
          expect(position).toBe(path === '/leads' ? b.leadId : b.dncPhone);
          const own = await a.client.get(`${path}?limit=1000`);
          expect(own.body.nextToken).toBeNull();
          const expected = rowsOf(own.body, field).filter((row) => row[key]! > position);

          const res = await a.client.get(`${path}?limit=1000&nextToken=${encodeURIComponent(token as string)}`);
          expect({ path, status: res.status, body: res.body }).toEqual({
            path,
            status: 200,
            body: { [field]: expected, nextToken: null },
          });
          // The cursor was applied, not ignored: A's row from before B's is left out, A's rows from after are in.
          const keys = expected.map((row) => row[key]);
          expect(keys, path).not.toContain(aBefore);
          expect(keys, path).toEqual(expect.arrayContaining([...aAfter]));
          const dump = JSON.stringify(res.body);
          expect(
            fingerprints(b).filter((f) => dump.includes(f)),
            `${path} with B's cursor holds B's rows`,
          ).toEqual([]);
        }
      });
    });

    describe('scopes: the one table in src/platform/auth/scopes.ts, enforced on every route', () => {
      it('lists every registered route, and only known scopes; public routes are exactly the key-less ones', () => {
        const ts = ctx();
        expect(
          registeredRoutes(ts)
            .map((r) => `${r.method} ${r.url}`)
            .sort(),
        ).toEqual(
          scopeTable()
            .map((r) => `${r.method} ${r.url}`)
            .sort(),
        );
        for (const scope of Object.values(routeScopes)) expect([...SCOPES, 'public']).toContain(scope);
        expect(
          scopeTable()
            .filter((r) => r.scope === 'public')
            .map((r) => `${r.method} ${r.url}`)
            .sort(),
        ).toEqual([
          // Live calls (src/calls/) add the relay WebSocket and Twilio's call callbacks, each verified by X-Twilio-Signature.
          'GET /v1/openapi.json',
          'GET /v1/providers/twilio/relay',
          'GET /v1/unsubscribe/:token',
          'POST /v1/providers/twilio/amd',
          'POST /v1/providers/twilio/call-status',
          'POST /v1/providers/twilio/relay/action',
          'POST /v1/providers/twilio/sms',
          'POST /v1/providers/twilio/status',
          'POST /v1/providers/twilio/transfer-status',
          'POST /v1/providers/twilio/voice',
          'POST /v1/providers/twilio/voice/gather',
          'POST /v1/providers/twilio/whisper',
          'POST /v1/unsubscribe/:token',
        ]);
      });

      /** A fresh lead for each call that gets through, so a DELETE or an opt-out does not change what the next call sees. */
      const callAs = async (ts: TestServer, client: Client, route: RouteEntry, getsThrough: boolean) => {
        const leadId = getsThrough ? await createLead(ts.acme) : a.leadId;
        const path =
          pathOf(route.url, { leadId, id: randomUUID(), deliveryId: randomUUID(), name: 'default' }) +
          (route.url.endsWith('/lookup') || route.url.endsWith('/check')
            ? `?phone=${encodeURIComponent(uniquePhone())}`
            : '');
        // The worker runs here: a registered webhook must point at our receiver, never at a host on the internet.
        const body =
          route.method === 'POST' && route.url === '/v1/webhooks'
            ? { url: receiver.url }
            : sampleBody(route.method, route.url);
        return client.call(route.method, path, body);
      };

      /**
       * The scopes a route's sample request needs: its own, and messages:write where the route always sends
       * (a campaign). The sample bodies ask for no send where that depends on the request (test/hardening/send-scope.test.ts).
       */
      const servedBy = (scopes: readonly string[], route: RouteEntry) =>
        scopes.includes(route.scope) &&
        (sendingRoutes[`${route.method} ${route.url}`] !== 'always' || scopes.includes(SEND_SCOPE));

      it('a key with exactly one scope is served on the routes of that scope and refused (403 Forbidden) on every other', async () => {
        const ts = ctx();
        const routes = registeredRoutes(ts).filter((r) => r.scope !== 'public');
        for (const scope of SCOPES) {
          const only = await ts.clientWithScopes([scope]);
          for (const route of routes) {
            const served = servedBy([scope], route);
            const res = await callAs(ts, only, route, served);
            const name = `${scope} -> ${route.method} ${route.url}`;
            if (served) expect({ name, status: res.status }).not.toEqual({ name, status: 403 });
            else
              expect({ name, status: res.status, body: res.body }).toEqual({
                name,
                status: 403,
                body: { message: 'Forbidden', code: 'forbidden' },
              });
          }
        }
      });

      it('a key with every scope but one is refused on the routes of the missing scope (and on campaigns without messages:write)', async () => {
        const ts = ctx();
        const routes = registeredRoutes(ts).filter((r) => r.scope !== 'public');
        for (const scope of SCOPES) {
          const scopes = SCOPES.filter((s) => s !== scope) as Scope[];
          const allBut = await ts.clientWithScopes(scopes);
          for (const route of routes.filter((r) => !servedBy(scopes, r))) {
            const res = await callAs(ts, allBut, route, false);
            expectError(res, 403, 'Forbidden');
          }
        }
      });
    });
  },
  { ...FAST_WEBHOOKS, ...FAST_AGENT_ENV },
);

/** What A has, as A sees it: used to show that B's attempts changed nothing. */
async function snapshot(w: World) {
  const get = async (path: string) => {
    const res = await w.client.get(path);
    return { status: res.status, body: res.body as unknown };
  };
  return {
    lead: await get(`/leads/${w.leadId}`),
    messages: await get(`/leads/${w.leadId}/messages`),
    context: await get(`/leads/${w.leadId}/context`),
    webhook: await get(`/webhooks/${w.webhookId}`),
    deliveries: (await deliveriesOf(w.client, w.webhookId)).map((d) => d.id).sort(),
    profile: await get(`/customerProfiles/${w.profile}`),
  };
}
