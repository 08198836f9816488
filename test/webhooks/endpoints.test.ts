import { expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import type { DeliveryStatus } from '../../src/platform/db/schema.js';
import { describeEachDialect, type Client, type TestServer, type V1Answer } from '../support/harness.js';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const MISSING = '00000000-0000-7000-8000-000000000000';
const endpointNotFound = (id: string) => `Resource not found: WebhookEndpoint with id ${id}`;
const deliveryNotFound = (id: string) => `Resource not found: WebhookDelivery with id ${id}`;
// The worker stays off: these tests own every delivery row they look at.
const ALLOW_PRIVATE = { PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true', PARLEY_WORKER: 'false' };

async function createEndpoint(client: Client, body: Record<string, unknown> = {}) {
  const res = await client.post('/webhooks', { url: 'http://127.0.0.1:9/hook', ...body });
  if (res.status !== 201) throw new Error(`create webhook failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const endpointRow = (ts: TestServer, id: string) =>
  ts.server.store.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();

const deliveryRows = (ts: TestServer, endpointId: string) =>
  ts.server.store.db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('id')
    .execute();

const endpointCount = async (ts: TestServer) =>
  Number(
    (
      await ts.server.store.db
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** The worker is not part of this suite: an event and its delivery rows are written straight into the store. */
async function seedDeliveries(ts: TestServer, endpointId: string, statuses: DeliveryStatus[]) {
  const endpoint = await endpointRow(ts, endpointId);
  const organizationId = endpoint!.organization_id;
  const eventId = newId();
  const at = new Date().toISOString();
  await ts.server.store.db
    .insertInto('events')
    .values({
      organization_id: organizationId,
      id: eventId,
      type: 'optOut',
      payload: '{"leadId":"x"}',
      created_at: at,
      dispatched_at: at,
    })
    .execute();
  const ids: string[] = [];
  for (const [i, status] of statuses.entries()) {
    const id = newId();
    ids.push(id);
    await ts.server.store.db
      .insertInto('webhook_deliveries')
      .values({
        organization_id: organizationId,
        id,
        endpoint_id: endpointId,
        event_id: eventId,
        event_type: 'optOut',
        status,
        attempts: i + 1,
        next_attempt_at: status === 'pending' ? at : null,
        lease_until: null,
        last_status_code: status === 'succeeded' ? 204 : 500,
        last_error: status === 'failed' ? 'HTTP 500' : null,
        created_at: at,
        updated_at: at,
        delivered_at: status === 'succeeded' ? at : null,
      })
      .execute();
  }
  return { eventId, ids };
}

describeEachDialect(
  'Webhook endpoints',
  (ctx) => {
    it('POST answers 201 with the endpoint and a whsec_ secret of 32 random bytes, stored as shown', async () => {
      const ts = ctx();
      const res = await ts.acme.post('/webhooks', { url: 'http://127.0.0.1:9/a' });
      expect(res.status).toBe(201);
      const { secret, ...view } = res.body;
      expect(secret).toMatch(SECRET);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect(view).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: 'http://127.0.0.1:9/a',
        description: null,
        events: null,
        enabled: true,
        disabledReason: null,
        createdAt: expect.any(String),
        updatedAt: view.createdAt,
      });
      expect((await endpointRow(ts, view.id))!.secret).toBe(secret);
      const other = await createEndpoint(ts.acme);
      expect(other.secret).not.toBe(secret);
    });

    it('keeps events (once each) and description; GET and list never show the secret', async () => {
      const { acme } = ctx();
      const created = await createEndpoint(acme, {
        events: ['optOut', 'message.sent', 'optOut'],
        description: 'CRM sync',
      });
      expect(created.events).toEqual(['optOut', 'message.sent']);
      const { secret, ...view } = created;
      const got = await acme.get(`/webhooks/${created.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ ...view, description: 'CRM sync' });
      expect(JSON.stringify(got.body)).not.toContain(secret);
      const list = await acme.get('/webhooks');
      expect(list.status).toBe(200);
      const listed = list.body.webhooks.find((w: { id: string }) => w.id === created.id);
      expect(listed).toEqual(got.body);
      expect(JSON.stringify(list.body)).not.toContain('whsec_');
    });

    it.each([
      ['an empty array', [], /^events /],
      ['an unknown type', ['optOut', 'lead.deleted'], /^events\.1 /],
      ['a string', 'optOut', /^events /],
      ['a non-string item', [1], /^events\.0 /],
    ])('refuses events as %s with a 400 naming the field, storing nothing', async (_name, events, message) => {
      const ts = ctx();
      const before = await endpointCount(ts);
      const res = await ts.acme.post('/webhooks', { url: 'http://127.0.0.1:9/e', events });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
      expect(await endpointCount(ts)).toBe(before);
    });

    it.each([
      ['no url', {}, 'url is required'],
      ['a relative url', { url: '/hook' }, 'url is not a valid absolute URL'],
      ['another scheme', { url: 'ftp://127.0.0.1/hook' }, 'url must use http or https'],
      ['credentials in the url', { url: 'https://user:pw@127.0.0.1/hook' }, 'url must not contain credentials'],
      [
        'a url over 2048 characters',
        { url: `https://127.0.0.1/${'a'.repeat(2048)}` },
        'url must be at most 2048 characters long',
      ],
      ['an unknown field', { url: 'https://127.0.0.1/', secret: 'whsec_mine' }, 'secret is not allowed'],
    ])('refuses %s even when private targets are allowed', async (_name, body, message) => {
      const ts = ctx();
      const before = await endpointCount(ts);
      const res = await ts.acme.post('/webhooks', body);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
      expect(await endpointCount(ts)).toBe(before);
    });

    it('rotateSecret answers a new secret that replaces the stored one', async () => {
      const ts = ctx();
      const created = await createEndpoint(ts.acme);
      const res = await ts.acme.post(`/webhooks/${created.id}/rotateSecret`);
      expect(res.status).toBe(200);
      expect(res.body.secret).toMatch(SECRET);
      expect(res.body.secret).not.toBe(created.secret);
      expect(res.body.id).toBe(created.id);
      expect((await endpointRow(ts, created.id))!.secret).toBe(res.body.secret);
      expect((await ts.acme.get(`/webhooks/${created.id}`)).body).not.toHaveProperty('secret');
    });

    it('PATCH changes url, events, description; events null means every type', async () => {
      const { acme } = ctx();
      const created = await createEndpoint(acme, { events: ['optOut'] });
      const res = await acme.patch(`/webhooks/${created.id}`, {
        url: 'http://localhost:9/b',
        events: ['leadTagged'],
        description: 'new',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: created.id,
        url: 'http://localhost:9/b',
        events: ['leadTagged'],
        description: 'new',
        enabled: true,
      });
      expect(res.body).not.toHaveProperty('secret');
      const cleared = await acme.patch(`/webhooks/${created.id}`, { events: null, description: null });
      expect(cleared.body).toMatchObject({ events: null, description: null, url: 'http://localhost:9/b' });
      expect((await acme.get(`/webhooks/${created.id}`)).body).toEqual(cleared.body);
    });

    it('PATCH enabled:false disables with a reason; enabled:true clears the reason', async () => {
      const ts = ctx();
      const created = await createEndpoint(ts.acme);
      const off = await ts.acme.patch(`/webhooks/${created.id}`, { enabled: false });
      expect(off.body).toMatchObject({ enabled: false, disabledReason: expect.any(String) });
      // As the worker leaves it after the last retry fails.
      await ts.server.store.db
        .updateTable('webhook_endpoints')
        .set({ disabled_reason: 'failing for 3 days' })
        .where('id', '=', created.id)
        .execute();
      expect((await ts.acme.patch(`/webhooks/${created.id}`, { enabled: false })).body.disabledReason).toBe(
        'failing for 3 days',
      );
      const on = await ts.acme.patch(`/webhooks/${created.id}`, { enabled: true });
      expect(on.status).toBe(200);
      expect(on.body).toMatchObject({ enabled: true, disabledReason: null });
      expect((await endpointRow(ts, created.id))!.disabled_reason).toBeNull();
    });

    it.each([
      ['an empty body', {}, /^body must set at least one of: /],
      ['an unknown field', { secret: 'x' }, 'secret is not allowed'],
      ['an empty events array', { events: [] }, 'events must list at least one item'],
      ['an unusable url', { url: 'ftp://127.0.0.1/' }, 'url must use http or https'],
    ])('PATCH refuses %s with 400 and changes nothing', async (_name, body, message) => {
      const ts = ctx();
      const created = await createEndpoint(ts.acme, { events: ['optOut'] });
      const res = await ts.acme.patch(`/webhooks/${created.id}`, body);
      expect(res.status).toBe(400);
      if (typeof message === 'string') expect(res.body.message).toBe(message);
      else expect(res.body.message).toMatch(message);
      const { secret: _s, ...view } = created;
      expect((await ts.acme.get(`/webhooks/${created.id}`)).body).toEqual(view);
    });

    it('DELETE removes the endpoint and its deliveries', async () => {
      const ts = ctx();
      const created = await createEndpoint(ts.acme);
      const kept = await createEndpoint(ts.acme);
      await seedDeliveries(ts, created.id, ['succeeded', 'failed']);
      await seedDeliveries(ts, kept.id, ['succeeded']);
      const res = await ts.acme.del(`/webhooks/${created.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Webhook endpoint deleted successfully.' });
      expect((await ts.acme.get(`/webhooks/${created.id}`)).status).toBe(404);
      expect(await endpointRow(ts, created.id)).toBeUndefined();
      expect(await deliveryRows(ts, created.id)).toHaveLength(0);
      expect(await deliveryRows(ts, kept.id)).toHaveLength(1);
      const again = await ts.acme.del(`/webhooks/${created.id}`);
      expect(again.status).toBe(404);
      expect(again.body.message).toBe(endpointNotFound(created.id));
    });

    it('404s an unknown endpoint on every route with the contract text', async () => {
      const { acme } = ctx();
      for (const send of [
        () => acme.get(`/webhooks/${MISSING}`),
        () => acme.patch(`/webhooks/${MISSING}`, { enabled: true }),
        () => acme.del(`/webhooks/${MISSING}`),
        () => acme.post(`/webhooks/${MISSING}/rotateSecret`),
        () => acme.get(`/webhooks/${MISSING}/deliveries`),
        () => acme.post(`/webhooks/${MISSING}/deliveries/${MISSING}/replay`),
        () => acme.get('/webhooks/not-a-uuid'),
      ]) {
        const res = await send();
        expect(res.status).toBe(404);
        expect(res.body.message).toMatch(/^Resource not found: WebhookEndpoint with id /);
      }
      expect((await acme.get(`/webhooks/${MISSING}`)).body.message).toBe(endpointNotFound(MISSING));
    });

    it('404s a delivery that is unknown or belongs to another endpoint', async () => {
      const ts = ctx();
      const a = await createEndpoint(ts.acme);
      const b = await createEndpoint(ts.acme);
      const { ids } = await seedDeliveries(ts, b.id, ['failed']);
      for (const deliveryId of [MISSING, ids[0]!]) {
        const res = await ts.acme.post(`/webhooks/${a.id}/deliveries/${deliveryId}/replay`);
        expect(res.status).toBe(404);
        expect(res.body.message).toBe(deliveryNotFound(deliveryId));
      }
      expect(await deliveryRows(ts, a.id)).toHaveLength(0);
      expect(await deliveryRows(ts, b.id)).toHaveLength(1);
    });

    it("keeps organizations apart: beta sees none of acme's endpoints or deliveries, and gets the same 404", async () => {
      const ts = ctx();
      const mine = await createEndpoint(ts.acme, { description: 'acme only' });
      const { ids } = await seedDeliveries(ts, mine.id, ['failed']);
      const theirs = await createEndpoint(ts.beta);
      const list = (await ts.beta.get('/webhooks')).body.webhooks.map((w: { id: string }) => w.id);
      expect(list).toContain(theirs.id);
      expect(list).not.toContain(mine.id);
      expect((await ts.acme.get('/webhooks')).body.webhooks.map((w: { id: string }) => w.id)).not.toContain(theirs.id);
      for (const send of [
        () => ts.beta.get(`/webhooks/${mine.id}`),
        () => ts.beta.patch(`/webhooks/${mine.id}`, { enabled: false, url: 'http://127.0.0.1:9/stolen' }),
        () => ts.beta.post(`/webhooks/${mine.id}/rotateSecret`),
        () => ts.beta.get(`/webhooks/${mine.id}/deliveries`),
        () => ts.beta.post(`/webhooks/${mine.id}/deliveries/${ids[0]}/replay`),
        () => ts.beta.del(`/webhooks/${mine.id}`),
      ]) {
        const res = await send();
        expect(res.status).toBe(404);
        expect(res.body.message).toBe(endpointNotFound(mine.id));
      }
      const { secret, ...view } = mine;
      expect((await ts.acme.get(`/webhooks/${mine.id}`)).body).toEqual(view);
      expect((await endpointRow(ts, mine.id))!.secret).toBe(secret);
      expect(await deliveryRows(ts, mine.id)).toHaveLength(1);
    });

    it('answers 403 {"message":"Forbidden"} on every webhook route to a key without webhooks:manage', async () => {
      const ts = ctx();
      const created = await createEndpoint(ts.acme);
      const { ids } = await seedDeliveries(ts, created.id, ['failed']);
      const others = await ts.clientWithScopes([
        'leads:read',
        'leads:write',
        'messages:write',
        'profiles:read',
        'profiles:write',
        'dnc:read',
        'dnc:write',
        'settings:read',
        'settings:write',
      ]);
      const manager = await ts.clientWithScopes(['webhooks:manage']);
      const calls: [string, string, unknown?][] = [
        ['POST', '/webhooks', { url: 'http://127.0.0.1:9/x' }],
        ['GET', '/webhooks'],
        ['GET', `/webhooks/${created.id}`],
        ['PATCH', `/webhooks/${created.id}`, { description: 'changed' }],
        ['POST', `/webhooks/${created.id}/rotateSecret`],
        ['GET', `/webhooks/${created.id}/deliveries`],
        ['POST', `/webhooks/${created.id}/deliveries/${ids[0]}/replay`],
        ['DELETE', `/webhooks/${created.id}`],
      ];
      for (const [method, path, body] of calls) {
        const res = await others.call(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body).toMatchObject({ message: 'Forbidden' });
      }
      expect((await endpointRow(ts, created.id))!.secret).toBe(created.secret);
      expect(await deliveryRows(ts, created.id)).toHaveLength(1);
      // The scope alone is enough for each of them.
      for (const [method, path, body] of calls) {
        expect((await manager.call(method, path, body)).status, `${method} ${path}`).toBeLessThan(300);
      }
    });

    it('lists deliveries newest first with their attempt details, paged by nextToken', async () => {
      const ts = ctx();
      const created = await createEndpoint(ts.acme);
      const { eventId, ids } = await seedDeliveries(ts, created.id, [
        'succeeded',
        'failed',
        'pending',
        'failed',
        'succeeded',
      ]);
      const newestFirst = [...ids].sort().reverse();
      const all = await ts.acme.get(`/webhooks/${created.id}/deliveries`);
      expect(all.status).toBe(200);
      expect(all.body.nextToken).toBeNull();
      expect(all.body.deliveries.map((d: { id: string }) => d.id)).toEqual(newestFirst);
      const byId = new Map(all.body.deliveries.map((d: { id: string }) => [d.id, d]));
      expect(byId.get(ids[0]!)).toEqual({
        id: ids[0],
        eventId,
        eventType: 'optOut',
        status: 'succeeded',
        attempts: 1,
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        deliveredAt: expect.any(String),
      });
      expect(byId.get(ids[1]!)).toMatchObject({
        status: 'failed',
        attempts: 2,
        lastStatusCode: 500,
        lastError: 'HTTP 500',
        deliveredAt: null,
      });
      expect(byId.get(ids[2]!)).toMatchObject({ status: 'pending', nextAttemptAt: expect.any(String) });

      const seen: string[] = [];
      let token: string | null = null;
      let pages = 0;
      do {
        const query: '?limit=2' | `?limit=2&nextToken=${string}` = token
          ? `?limit=2&nextToken=${encodeURIComponent(token)}`
          : '?limit=2';
        const res: V1Answer<'GET', `/webhooks/${string}/deliveries?limit=2`> = await ts.acme.get(
          `/webhooks/${created.id}/deliveries${query}`,
        );
        expect(res.status).toBe(200);
        expect(res.body.deliveries.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.deliveries.map((d) => d.id));
        token = res.body.nextToken;
        pages += 1;
      } while (token && pages < 10);
      expect(pages).toBe(3);
      expect(seen).toEqual(newestFirst);
    });

    it('filters deliveries by status and refuses bad paging input', async () => {
      const ts = ctx();
      const created = await createEndpoint(ts.acme);
      const { ids } = await seedDeliveries(ts, created.id, ['succeeded', 'failed', 'pending', 'failed']);
      const failed = await ts.acme.get(`/webhooks/${created.id}/deliveries?status=failed`);
      expect(failed.body.deliveries.map((d: { id: string }) => d.id)).toEqual([ids[3], ids[1]]);
      const pending = await ts.acme.get(`/webhooks/${created.id}/deliveries?status=pending`);
      expect(pending.body.deliveries.map((d: { id: string }) => d.id)).toEqual([ids[2]]);
      const firstFailed = await ts.acme.get(`/webhooks/${created.id}/deliveries?status=failed&limit=1`);
      expect(firstFailed.body.deliveries.map((d: { id: string }) => d.id)).toEqual([ids[3]]);
      const nextFailed = await ts.acme.get(
        `/webhooks/${created.id}/deliveries?status=failed&limit=1&nextToken=${firstFailed.body.nextToken}`,
      );
      expect(nextFailed.body.deliveries.map((d: { id: string }) => d.id)).toEqual([ids[1]]);
      expect(nextFailed.body.nextToken).toBeNull();
      for (const query of ['status=lost', 'limit=0', 'limit=1001', 'nextToken=not-a-cursor']) {
        const res = await ts.acme.get(`/webhooks/${created.id}/deliveries?${query}`);
        expect(res.status, query).toBe(400);
      }
    });

    it('replay queues a new pending delivery of the same event, due now, and leaves the original alone', async () => {
      const ts = ctx();
      const created = await createEndpoint(ts.acme);
      const { eventId, ids } = await seedDeliveries(ts, created.id, ['failed']);
      const before = Date.now();
      const res = await ts.acme.post(`/webhooks/${created.id}/deliveries/${ids[0]}/replay`);
      expect(res.status).toBe(202);
      expect(res.body).toEqual({
        message: 'Delivery queued for replay.',
        deliveryId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      const rows = await deliveryRows(ts, created.id);
      expect(rows).toHaveLength(2);
      const replayed = rows.find((r) => r.id === res.body.deliveryId)!;
      expect(replayed).toMatchObject({
        event_id: eventId,
        event_type: 'optOut',
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        last_error: null,
        delivered_at: null,
        lease_until: null,
      });
      const due = Date.parse(replayed.next_attempt_at!);
      expect(due).toBeGreaterThanOrEqual(before - 1000);
      expect(due).toBeLessThanOrEqual(Date.now() + 1000);
      expect(rows.find((r) => r.id === ids[0])).toMatchObject({ status: 'failed', attempts: 1 });
      const listed = await ts.acme.get(`/webhooks/${created.id}/deliveries`);
      expect(listed.body.deliveries[0]).toMatchObject({
        id: res.body.deliveryId,
        status: 'pending',
        attempts: 0,
        eventId,
      });
    });

    it('refuses to replay to a disabled endpoint with 409', async () => {
      const ts = ctx();
      const created = await createEndpoint(ts.acme);
      const { ids } = await seedDeliveries(ts, created.id, ['failed']);
      await ts.acme.patch(`/webhooks/${created.id}`, { enabled: false });
      const res = await ts.acme.post(`/webhooks/${created.id}/deliveries/${ids[0]}/replay`);
      expect(res.status).toBe(409);
      expect(res.body.message).toMatch(/disabled/);
      expect(await deliveryRows(ts, created.id)).toHaveLength(1);
      await ts.acme.patch(`/webhooks/${created.id}`, { enabled: true });
      expect((await ts.acme.post(`/webhooks/${created.id}/deliveries/${ids[0]}/replay`)).status).toBe(202);
    });
  },
  ALLOW_PRIVATE,
);

describeEachDialect(
  'Webhook endpoints without PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS',
  (ctx) => {
    it.each([
      [
        'plain http',
        'http://93.184.216.34/hook',
        'url must use https (http is allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      ],
      [
        'IPv4 loopback',
        'https://127.0.0.1/hook',
        'url must not point to a private, loopback or link-local address (allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      ],
      [
        'a private IPv4 address',
        'https://10.0.0.1/hook',
        'url must not point to a private, loopback or link-local address (allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      ],
      [
        'IPv6 loopback',
        'https://[::1]/hook',
        'url must not point to a private, loopback or link-local address (allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      ],
      [
        'a name that resolves to loopback',
        'https://localhost/hook',
        'url must not point to a private, loopback or link-local address (allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      ],
      [
        'the link-local metadata address',
        'https://169.254.169.254/latest',
        'url must not point to a private, loopback or link-local address (allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      ],
      [
        'an IPv4-mapped IPv6 loopback',
        'https://[::ffff:127.0.0.1]/hook',
        'url must not point to a private, loopback or link-local address (allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      ],
      [
        'the unspecified address',
        'https://0.0.0.0/hook',
        'url must not point to a private, loopback or link-local address (allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      ],
    ])('refuses %s with 400 and stores nothing', async (_name, url, message) => {
      const ts = ctx();
      const res = await ts.acme.post('/webhooks', { url });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
      expect(await endpointCount(ts)).toBe(0);
      expect((await ts.acme.get('/webhooks')).body.webhooks).toEqual([]);
    });

    it('accepts a public https address, and refuses a PATCH that points it somewhere private', async () => {
      const ts = ctx();
      const created = await ts.acme.post('/webhooks', { url: 'https://93.184.216.34/hook' });
      expect(created.status).toBe(201);
      for (const url of ['https://127.0.0.1/hook', 'http://93.184.216.34/hook', 'https://[fe80::1]/hook']) {
        const res = await ts.acme.patch(`/webhooks/${created.body.id}`, { url });
        expect(res.status, url).toBe(400);
        expect(res.body.message).toMatch(/^url must/);
      }
      expect((await ts.acme.get(`/webhooks/${created.body.id}`)).body.url).toBe('https://93.184.216.34/hook');
      await ts.acme.del(`/webhooks/${created.body.id}`);
    });
  },
  { PARLEY_WORKER: 'false' },
);
