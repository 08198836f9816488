import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { updateLead } from '../../src/lead-records/leads.repository.js';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { expectError } from '../support/assert.js';
import type { V1Routes } from '../support/api.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';

/** A listed lead as GET /v1/leads answers it (test/support/api.ts). */
type Listed = V1Routes['GET /leads']['leads'][number];

/** A listed lead that is not erased (an erased one is only `{ id, deleted, deletedAt }`). */
function live(l: Listed) {
  if (l.deleted) throw new Error(`lead ${l.id} is listed as erased`);
  return l;
}

const EPOCH = '2000-01-01T00:00:00.000Z';

async function freshOrg(ts: TestServer): Promise<{ client: Client; org: string }> {
  const name = `list-${randomUUID().slice(0, 8)}`;
  const client = await ts.clientWithScopes([...SCOPES], name);
  const row = await ts.server.store.db
    .selectFrom('organizations')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return { client, org: row.id };
}

/** Every page of a listing, following nextToken (the token alone: it carries the listing). */
async function walk(client: Client, query: string, limit: number): Promise<{ items: Listed[]; pages: number }> {
  const items: Listed[] = [];
  let res = await client.get(`/leads?${query}&limit=${limit}`);
  let pages = 1;
  for (;;) {
    expect(res.status).toBe(200);
    expect(res.body.leads.length).toBeLessThanOrEqual(limit);
    items.push(...res.body.leads);
    if (!res.body.nextToken || pages > 100) break;
    res = await client.get(`/leads?limit=${limit}&nextToken=${encodeURIComponent(res.body.nextToken)}`);
    pages += 1;
  }
  return { items, pages };
}

/** Sets a lead's timestamps directly, to build ties and orders the clock would take long to produce. */
async function stamp(ts: TestServer, id: string, fields: { created_at?: string; updated_at?: string }) {
  await ts.server.store.db.updateTable('leads').set(fields).where('id', '=', id).execute();
}

const ids = (items: Listed[]) => items.map((l) => l.id);

describeEachDialect('GET /v1/leads (createdSince / updatedSince)', (ctx) => {
  describe('order and keyset pages', () => {
    it('orders by createdAt, then id on equal times, and walks every lead once in pages of any size', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      const made: string[] = [];
      for (let i = 0; i < 7; i++) made.push(await createLead(client));
      // Creation times out of id order, with ties: 0 and 1 at T2, 2..4 at T1, 5 and 6 at T3.
      const [t1, t2, t3] = ['2026-03-01T10:00:00.000Z', '2026-03-01T11:00:00.000Z', '2026-03-01T12:00:00.000Z'];
      const when = [t2, t2, t1, t1, t1, t3, t3];
      for (let i = 0; i < 7; i++) await stamp(ts, made[i]!, { created_at: when[i]! });
      const expected = made
        .map((id, i) => ({ id, at: when[i]! }))
        .sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : 1) : a.at < b.at ? -1 : 1))
        .map((x) => x.id);
      for (const limit of [1, 2, 3, 7, 100]) {
        const { items, pages } = await walk(client, `createdSince=${EPOCH}`, limit);
        expect(ids(items), `limit ${limit}`).toEqual(expected);
        expect(pages, `pages of ${limit}`).toBe(Math.ceil(7 / limit)); // no empty last page: a page knows whether more exist
      }
      const since = await client.get(`/leads?createdSince=${encodeURIComponent('2026-03-01T11:00:00Z')}`);
      expect(ids(since.body.leads)).toEqual(expected.filter((id) => when[made.indexOf(id)]! >= t2));
    });

    it('orders by updatedAt when updatedSince is given (a lead changed later comes later), createdSince still filtering', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      const [a, b, c] = [await createLead(client), await createLead(client), await createLead(client)];
      await stamp(ts, a, { created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-04-03T00:00:00.000Z' });
      await stamp(ts, b, { created_at: '2026-02-01T00:00:00.000Z', updated_at: '2026-04-01T00:00:00.000Z' });
      await stamp(ts, c, { created_at: '2026-03-01T00:00:00.000Z', updated_at: '2026-04-02T00:00:00.000Z' });
      expect(ids((await walk(client, `updatedSince=${EPOCH}`, 2)).items)).toEqual([b, c, a]);
      expect(ids((await walk(client, `createdSince=${EPOCH}`, 2)).items)).toEqual([a, b, c]);
      expect(ids((await walk(client, `updatedSince=2026-04-02T00:00:00Z`, 1)).items)).toEqual([c, a]);
      // Both: filtered by both, ordered by updatedAt.
      expect(ids((await walk(client, `updatedSince=${EPOCH}&createdSince=2026-02-01T00:00:00Z`, 1)).items)).toEqual([
        b,
        c,
      ]);
      // A change through the API moves the lead to the end of the updatedAt order.
      expect((await client.patch(`/leads/${b}`, { isHot: true })).status).toBe(200);
      expect(ids((await walk(client, `updatedSince=${EPOCH}`, 10)).items)).toEqual([c, a, b]);
    });

    it('keeps its place when leads are created or changed during a walk: nothing skipped, a changed lead comes again at its new time', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      const made: string[] = [];
      for (let i = 0; i < 6; i++) made.push(await createLead(client));
      for (let i = 0; i < 6; i++) await stamp(ts, made[i]!, { updated_at: `2026-05-01T00:00:0${i}.000Z` });
      const first = await client.get(`/leads?updatedSince=${EPOCH}&limit=3`);
      expect(ids(first.body.leads)).toEqual(made.slice(0, 3));
      // During the walk: a lead already seen changes, and a new one arrives.
      expect((await client.patch(`/leads/${made[0]}`, { isQualified: true })).status).toBe(200);
      const late = await createLead(client);
      const rest = await client.get(`/leads?limit=10&nextToken=${encodeURIComponent(first.body.nextToken!)}`);
      expect(ids(rest.body.leads)).toEqual([...made.slice(3), made[0], late].filter((x): x is string => !!x));
      expect(rest.body.nextToken).toBeNull();
    });

    it('finds a lead whose activity moved (an outbound send records it) with updatedSince, at its lastActivityAt', async () => {
      const ts = ctx();
      const { client, org } = await freshOrg(ts);
      const [quiet, active] = [await createLead(client), await createLead(client)];
      for (const id of [quiet, active])
        await stamp(ts, id, { created_at: '2026-07-01T00:00:00.000Z', updated_at: '2026-07-01T00:00:00.000Z' });
      // What channels/outbound.ts writes when a message goes out: the activity time alone.
      await updateLead(ts.server.store.db, org, active, { last_activity_at: '2026-07-02T00:00:00.000Z' });
      const listed = (await client.get('/leads?updatedSince=2026-07-01T12:00:00Z')).body.leads;
      expect(listed.map(live).map((l) => [l.id, l.updatedAt, l.lastActivityAt])).toEqual([
        [active, '2026-07-02T00:00:00.000Z', '2026-07-02T00:00:00.000Z'],
      ]);
      // A write that says its own updated_at keeps it.
      await updateLead(ts.server.store.db, org, quiet, {
        last_activity_at: '2026-07-03T00:00:00.000Z',
        updated_at: '2026-07-01T00:00:00.000Z',
      });
      expect((await client.get(`/leads/${quiet}`)).body.updatedAt).toBe('2026-07-01T00:00:00.000Z');
    });

    it('gives each lead deleted: false and deletedAt: null beside its fields', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      const id = await createLead(client, { email: 'listed@example.com', additionalInfo: { k: 1 } });
      const listed = (await client.get(`/leads?createdSince=${EPOCH}`)).body.leads;
      const lead = (await client.get(`/leads/${id}`)).body;
      expect(listed).toEqual([{ ...lead, deleted: false, deletedAt: null }]);
      // The unfiltered list (Parley's addition) has the same shape.
      expect((await client.get('/leads')).body.leads).toEqual([{ ...lead, deleted: false, deletedAt: null }]);
    });
  });

  describe('erased leads', () => {
    it('lists an erased lead as its id, deleted: true and deletedAt only, at its erasure time (updatedAt order) or creation time (createdAt order)', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      const [a, b, c] = [
        await createLead(client, { email: 'gone@example.com', additionalInfo: { secret: 'x' } }),
        await createLead(client),
        await createLead(client),
      ];
      await stamp(ts, a, { created_at: '2026-06-01T00:00:00.000Z', updated_at: '2026-06-01T00:00:00.000Z' });
      await stamp(ts, b, { created_at: '2026-06-02T00:00:00.000Z', updated_at: '2026-06-02T00:00:00.000Z' });
      await stamp(ts, c, { created_at: '2026-06-03T00:00:00.000Z', updated_at: '2026-06-03T00:00:00.000Z' });
      ts.clock.set('2026-06-02T12:00:00.000Z');
      try {
        expect((await client.del(`/leads/${a}`)).status).toBe(200);
      } finally {
        ts.clock.reset();
      }
      const byUpdate = (await walk(client, `updatedSince=${EPOCH}`, 1)).items;
      expect(ids(byUpdate)).toEqual([b, a, c]);
      const erased = byUpdate[1]!;
      expect(erased).toEqual({
        id: a,
        deleted: true,
        deletedAt: expect.stringMatching(/^2026-06-02T12:00:0\d\.\d{3}Z$/),
      });
      expect(JSON.stringify(byUpdate)).not.toContain('gone@example.com');
      const byCreation = (await walk(client, `createdSince=${EPOCH}`, 2)).items;
      expect(ids(byCreation)).toEqual([a, b, c]);
      expect(byCreation[0]).toEqual(erased);
      // Filters apply to it: its erasure is before this updatedSince, its creation before this createdSince.
      expect(ids((await client.get('/leads?updatedSince=2026-06-02T13:00:00Z')).body.leads)).toEqual([c]);
      expect(ids((await client.get('/leads?createdSince=2026-06-01T00:00:01Z')).body.leads)).toEqual([b, c]);
      // GET of the erased lead is still the contract's 404, and the unfiltered list shows only current leads.
      expectError(await client.get(`/leads/${a}`), 404, `Resource not found: Lead with id ${a}`);
      expect(ids((await client.get('/leads')).body.leads)).toEqual([b, c]);
    });

    it("never lists another organization's leads or erased leads", async () => {
      const ts = ctx();
      const one = await freshOrg(ts);
      const two = await freshOrg(ts);
      const mine = await createLead(one.client);
      const theirs = await createLead(two.client);
      const theirsGone = await createLead(two.client);
      expect((await two.client.del(`/leads/${theirsGone}`)).status).toBe(200);
      for (const q of [`createdSince=${EPOCH}`, `updatedSince=${EPOCH}`]) {
        expect(ids((await one.client.get(`/leads?${q}`)).body.leads)).toEqual([mine]);
        expect(ids((await two.client.get(`/leads?${q}`)).body.leads).sort()).toEqual([theirs, theirsGone].sort());
      }
    });
  });

  describe('nextToken', () => {
    it('carries the listing: the next page needs only the token, and a page of the unfiltered list cannot continue a filtered one', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      const made = [await createLead(client), await createLead(client), await createLead(client)];
      const first = await client.get(`/leads?createdSince=${EPOCH}&limit=2`);
      expect(first.body.nextToken).toEqual(expect.any(String));
      expect(first.body.nextToken).not.toContain(made[1]!); // opaque
      const again = await client.get(
        `/leads?createdSince=${EPOCH}&limit=2&nextToken=${encodeURIComponent(first.body.nextToken!)}`,
      );
      const alone = await client.get(`/leads?limit=2&nextToken=${encodeURIComponent(first.body.nextToken!)}`);
      expect(again.body).toEqual(alone.body);
      expect(ids(alone.body.leads)).toEqual([made[2]]);
      expect(alone.body.nextToken).toBeNull();
      const plain = await client.get('/leads?limit=1');
      expectError(
        await client.get(`/leads?createdSince=${EPOCH}&nextToken=${encodeURIComponent(plain.body.nextToken!)}`),
        400,
        'nextToken is not a valid cursor',
      );
    });

    it.each([
      ['garbage', 'garbage'],
      [
        'a token with an unknown order',
        Buffer.from(
          JSON.stringify({
            o: 'name',
            t: '2026-01-01T00:00:00.000Z',
            i: '00000000-0000-7000-8000-000000000000',
            c: EPOCH,
          }),
        ).toString('base64url'),
      ],
      [
        'a token with a bad time',
        Buffer.from(
          JSON.stringify({ o: 'created', t: 'yesterday', i: '00000000-0000-7000-8000-000000000000', c: EPOCH }),
        ).toString('base64url'),
      ],
      [
        'a token with a bad id',
        Buffer.from(JSON.stringify({ o: 'created', t: EPOCH, i: "x' or 1=1 --", c: EPOCH })).toString('base64url'),
      ],
      [
        'an updatedAt token without its filter',
        Buffer.from(JSON.stringify({ o: 'updated', t: EPOCH, i: '00000000-0000-7000-8000-000000000000' })).toString(
          'base64url',
        ),
      ],
    ])('400s %s and answers nothing else', async (_name, token) => {
      expectError(
        await ctx().acme.get(`/leads?updatedSince=${EPOCH}&nextToken=${encodeURIComponent(token)}`),
        400,
        'nextToken is not a valid cursor',
      );
    });

    it('bounds limit (1..1000, default 100) and checks the timestamps', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      for (let batch = 0; batch < 101; batch += 25)
        await Promise.all(Array.from({ length: Math.min(25, 101 - batch) }, () => createLead(client)));
      const first = await client.get(`/leads?updatedSince=${EPOCH}`);
      expect(first.body.leads).toHaveLength(100);
      expect(
        (await client.get(`/leads?limit=1000&nextToken=${encodeURIComponent(first.body.nextToken!)}`)).body.leads,
      ).toHaveLength(1);
      expect((await client.get(`/leads?updatedSince=${EPOCH}&limit=1000`)).body.leads).toHaveLength(101);
      expect((await client.get(`/leads?updatedSince=${EPOCH}&limit=1001`)).status).toBe(400);
      expect((await client.get(`/leads?updatedSince=${EPOCH}&limit=0`)).status).toBe(400);
      const bad = await client.get('/leads?updatedSince=last%20week');
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/^updatedSince /);
      // A leap second passes the date-time format but is no JavaScript date: still the client's 400, never a 500.
      for (const field of ['createdSince', 'updatedSince']) {
        expectError(
          await client.get(`/leads?${field}=2026-06-30T23:59:60Z`),
          400,
          `${field} must be a date and time in ISO 8601 with its offset, like 2026-01-31T09:00:00Z`,
        );
      }
    });
  });
});
