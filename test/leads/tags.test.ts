import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { insertTag } from '../../src/lead-records/leads.repository.js';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { newId } from '../../src/platform/ids.js';
import { expectError, sleep } from '../support/assert.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';

type Tag = { id: string; name: string; condition: string };

async function freshOrg(ts: TestServer): Promise<{ client: Client; org: string }> {
  const name = `tags-${randomUUID().slice(0, 8)}`;
  const client = await ts.clientWithScopes([...SCOPES], name);
  const row = await ts.server.store.db
    .selectFrom('organizations')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return { client, org: row.id };
}

/** Tags a lead the way the agent does (agent/apply.ts): the organization's tag of that name, made on first use. */
async function tagLead(ts: TestServer, org: string, leadId: string, name: string): Promise<string> {
  return insertTag(ts.server.store.db, org, {
    id: newId(),
    lead_id: leadId,
    name,
    condition: `${name} condition`,
    created_at: new Date().toISOString(),
  });
}

const put = (client: Client, leadId: string, body: unknown) => client.call('PUT', `/leads/${leadId}/tags`, body);
const tagsOf = async (client: Client, leadId: string): Promise<Tag[]> =>
  (await client.get(`/leads/${leadId}`)).body.tags;
const byId = (a: Tag, b: Tag) => (a.id < b.id ? -1 : 1);

describeEachDialect('lead tags', (ctx) => {
  describe('tag ids belong to the organization', () => {
    it('gives one tag the same id on every lead that carries it, and another name another id', async () => {
      const ts = ctx();
      const { client, org } = await freshOrg(ts);
      const [a, b] = [await createLead(client), await createLead(client)];
      const hotA = await tagLead(ts, org, a, 'hot');
      const hotB = await tagLead(ts, org, b, 'hot');
      const vip = await tagLead(ts, org, b, 'vip');
      expect(hotB).toBe(hotA);
      expect(vip).not.toBe(hotA);
      expect(await tagLead(ts, org, b, 'hot')).toBe(hotA); // again on the same lead: still one tag
      expect(await tagsOf(client, a)).toEqual([{ id: hotA, name: 'hot', condition: 'hot condition' }]);
      expect(await tagsOf(client, b)).toEqual(
        [
          { id: hotA, name: 'hot', condition: 'hot condition' },
          { id: vip, name: 'vip', condition: 'vip condition' },
        ].sort(byId),
      );
    });

    it("keeps organizations' tags apart: the same name is another tag in another organization", async () => {
      const ts = ctx();
      const one = await freshOrg(ts);
      const two = await freshOrg(ts);
      const hotOne = await tagLead(ts, one.org, await createLead(one.client), 'hot');
      const hotTwo = await tagLead(ts, two.org, await createLead(two.client), 'hot');
      expect(hotTwo).not.toBe(hotOne);
    });
  });

  describe('PUT /leads/{leadId}/tags', () => {
    it("makes the given tags exactly the lead's tags and answers them", async () => {
      const ts = ctx();
      const { client, org } = await freshOrg(ts);
      const [lead, other] = [await createLead(client), await createLead(client)];
      const hot = await tagLead(ts, org, lead, 'hot');
      const vip = await tagLead(ts, org, other, 'vip');
      const demo = await tagLead(ts, org, other, 'demo');
      const res = await put(client, lead, { tagIds: [vip, demo, vip] });
      expect(res.status).toBe(200);
      const expected = [
        { id: vip, name: 'vip', condition: 'vip condition' },
        { id: demo, name: 'demo', condition: 'demo condition' },
      ].sort(byId);
      expect(res.body).toEqual({ tags: expected });
      expect(await tagsOf(client, lead)).toEqual(expected);
      expect((await tagsOf(client, lead)).map((t) => t.id)).not.toContain(hot);
      // The other lead keeps its own.
      expect((await tagsOf(client, other)).map((t) => t.id).sort()).toEqual([vip, demo].sort());
    });

    it('clears every tag with an empty list, and moves updatedAt only when the tags changed', async () => {
      const ts = ctx();
      const { client, org } = await freshOrg(ts);
      const lead = await createLead(client);
      const hot = await tagLead(ts, org, lead, 'hot');
      const before = (await client.get(`/leads/${lead}`)).body.updatedAt as string;
      await sleep(5);
      const same = await put(client, lead, { tagIds: [hot] });
      expect(same.body).toEqual({ tags: [{ id: hot, name: 'hot', condition: 'hot condition' }] });
      expect((await client.get(`/leads/${lead}`)).body.updatedAt).toBe(before);
      const cleared = await put(client, lead, { tagIds: [] });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toEqual({ tags: [] });
      const after = (await client.get(`/leads/${lead}`)).body;
      expect(after.tags).toEqual([]);
      expect(after.updatedAt > before).toBe(true);
      // The tag still exists in the organization: it can be put back.
      expect((await put(client, lead, { tagIds: [hot] })).body.tags.map((t: Tag) => t.id)).toEqual([hot]);
    });

    it("400s an id that is not a tag of the organization (another organization's included) and changes nothing", async () => {
      const ts = ctx();
      const { client, org } = await freshOrg(ts);
      const stranger = await freshOrg(ts);
      const lead = await createLead(client);
      const hot = await tagLead(ts, org, lead, 'hot');
      const foreign = await tagLead(ts, stranger.org, await createLead(stranger.client), 'vip');
      const before = (await client.get(`/leads/${lead}`)).body;
      expectError(
        await put(client, lead, { tagIds: [foreign] }),
        400,
        `tagIds has ids that are not tags of this organization: ${foreign}`,
      );
      expectError(
        await put(client, lead, { tagIds: [hot, 'nope-1', 'nope-2'] }),
        400,
        'tagIds has ids that are not tags of this organization: nope-1, nope-2',
      );
      const many = Array.from({ length: 7 }, (_, i) => `x${i}`);
      expectError(
        await put(client, lead, { tagIds: many }),
        400,
        'tagIds has ids that are not tags of this organization: x0, x1, x2, x3, x4 and 2 more',
      );
      expect((await client.get(`/leads/${lead}`)).body).toEqual(before);
    });

    it('validates the body, and 404s an unknown or foreign lead, changing nothing', async () => {
      const ts = ctx();
      const { client, org } = await freshOrg(ts);
      const lead = await createLead(client);
      const hot = await tagLead(ts, org, lead, 'hot');
      const missing = '00000000-0000-7000-8000-000000000000';
      expectError(await put(client, lead, {}), 400, 'tagIds is required');
      for (const tagIds of ['hot', [1], [''], null]) {
        const res = await put(client, lead, { tagIds });
        expect(res.status, JSON.stringify(tagIds)).toBe(400);
        expect(res.body.message, JSON.stringify(tagIds)).toMatch(/^tagIds/);
      }
      expectError(await put(client, lead, { tagIds: [hot], extra: 1 }), 400, 'extra is not allowed');
      expectError(await put(client, missing, { tagIds: [hot] }), 404, `Resource not found: Lead with id ${missing}`);
      expectError(await put(ts.beta, lead, { tagIds: [] }), 404, `Resource not found: Lead with id ${lead}`);
      const reader = await ts.clientWithScopes(['leads:read']);
      expectError(await put(reader, lead, { tagIds: [] }), 403, 'Forbidden');
      expect(await tagsOf(client, lead)).toEqual([{ id: hot, name: 'hot', condition: 'hot condition' }]);
    });

    it('serialises concurrent replaces of one lead: the lead ends with exactly one of the requested sets', async () => {
      const ts = ctx();
      const { client, org } = await freshOrg(ts);
      const lead = await createLead(client);
      const names = ['a', 'b', 'c', 'd', 'e', 'f'];
      const tagIds: string[] = [];
      for (const n of names) tagIds.push(await tagLead(ts, org, lead, n));
      const sets = [[tagIds[0]!, tagIds[1]!], [tagIds[2]!], [tagIds[3]!, tagIds[4]!, tagIds[5]!], []];
      const results = await Promise.all(sets.map((set) => put(client, lead, { tagIds: set })));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const final = (await tagsOf(client, lead)).map((t) => t.id).sort();
      expect(sets.map((s) => [...s].sort())).toContainEqual(final);
    });
  });

  describe('POST /leads/{leadId}/tags/remove', () => {
    it('removes a shared tag from this lead only, and an empty list is a successful no-op', async () => {
      const ts = ctx();
      const { client, org } = await freshOrg(ts);
      const [a, b] = [await createLead(client), await createLead(client)];
      const hot = await tagLead(ts, org, a, 'hot');
      await tagLead(ts, org, b, 'hot');
      const res = await client.post(`/leads/${a}/tags/remove`, { tagIds: [hot] });
      expect(res.body).toEqual({ message: 'Tags removed successfully.', removed: 1 });
      expect(await tagsOf(client, a)).toEqual([]);
      expect((await tagsOf(client, b)).map((t) => t.id)).toEqual([hot]);
      const before = (await client.get(`/leads/${b}`)).body;
      const empty = await client.post(`/leads/${b}/tags/remove`, { tagIds: [] });
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({ message: 'Tags removed successfully.', removed: 0 });
      expect((await client.get(`/leads/${b}`)).body).toEqual(before);
      expectError(
        await client.post(`/leads/00000000-0000-7000-8000-000000000000/tags/remove`, { tagIds: [] }),
        404,
        'Resource not found: Lead with id 00000000-0000-7000-8000-000000000000',
      );
    });
  });
});
