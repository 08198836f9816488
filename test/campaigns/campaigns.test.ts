import { expect, it } from 'vitest';
import { ENROLL_BATCH } from '../../src/campaigns/enrollment.js';
import { allLeads, importCsv, importPhone } from '../imports/support.js';
import { expectError } from '../support/assert.js';
import { createLead, describeEachDialect } from '../support/harness.js';
import { createCampaign, enrolledLeads, freshOrg, LATER, tagLead } from './helpers.js';

describeEachDialect(
  'campaigns: the snapshot, the API and its errors',
  (ctx) => {
    it('selects leads by tags (all of tags, any of anyTags), profile, creation range and additionalInfo equality', async () => {
      const ts = ctx();
      const { client, org } = await freshOrg(ts);
      expect(
        (await client.post('/customerProfiles', { name: 'renewals', openingMessage: 'Hi {{firstName}}' })).status,
      ).toBe(201);
      const a = await createLead(client, { additionalInfo: { source: 'expo', visits: 3 } });
      const b = await createLead(client, { additionalInfo: { source: 'web', visits: '3' } });
      const c = await createLead(client, { customerProfile: 'renewals', additionalInfo: { source: 'expo' } });
      await tagLead(ts, org, a, 'hot');
      await tagLead(ts, org, a, 'vip');
      await tagLead(ts, org, b, 'hot');
      await tagLead(ts, org, c, 'vip');
      const createdC = (await client.get(`/leads/${c}`)).body.createdAt as string;
      const startAt = LATER();
      const ids = async (filter: Record<string, unknown>) =>
        [...(await enrolledLeads(ts, (await createCampaign(client, { filter, startAt })).id)).keys()].sort();
      expect(await ids({})).toEqual([a, b, c].sort());
      expect(await ids({ tags: ['hot', 'vip'] })).toEqual([a]);
      expect(await ids({ anyTags: ['vip', 'nope'] })).toEqual([a, c].sort());
      expect(await ids({ tags: ['hot'], anyTags: ['vip'] })).toEqual([a]);
      expect(await ids({ customerProfile: 'renewals' })).toEqual([c]);
      expect(await ids({ createdAfter: createdC })).toEqual([c]);
      expect(await ids({ createdBefore: createdC })).toEqual([a, b].sort());
      expect(await ids({ additionalInfo: { source: 'expo' } })).toEqual([a, c].sort());
      expect(await ids({ additionalInfo: { source: 'expo', visits: 3 } })).toEqual([a]);
      expect(await ids({ additionalInfo: { visits: '3' } })).toEqual([b]);
      expect(await ids({ tags: ['nobody-has-it'] })).toEqual([]);
    });

    it('enrolls a snapshot: a lead created afterwards is not added', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      const before = await createLead(client, { additionalInfo: { list: 'june' } });
      const campaign = await createCampaign(client, { filter: { additionalInfo: { list: 'june' } }, startAt: LATER() });
      const after = await createLead(client, { additionalInfo: { list: 'june' } });
      expect(campaign.counts).toMatchObject({ enrolled: 1, pending: 1, blocked: 0 });
      const got = await client.get(`/campaigns/${campaign.id}`);
      expect(got.body.counts.enrolled).toBe(1);
      const enrolled = await enrolledLeads(ts, campaign.id);
      expect(enrolled.has(before)).toBe(true);
      expect(enrolled.has(after)).toBe(false);
    });

    it('enrolls opted-out, DNC and unreachable leads as blocked with the reason, never silently left out', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      const fine = await createLead(client);
      const optedOut = await createLead(client);
      expect((await client.post(`/leads/${optedOut}/unsubscribe`, {})).status).toBe(200);
      const dncPhone = `+1415${String(3000000 + Math.floor(Math.random() * 999999)).padStart(7, '0')}`;
      const onDnc = await createLead(client, { phone: dncPhone });
      expect((await client.post('/dnc/register', { phone: dncPhone })).status).toBe(200);
      const campaign = await createCampaign(client, { filter: {}, startAt: LATER() });
      expect(campaign.counts).toMatchObject({
        enrolled: 3,
        pending: 1,
        blocked: 2,
        blockedByReason: { OPTED_OUT: 1, DNC: 1 },
      });
      const enrolled = await enrolledLeads(ts, campaign.id);
      expect(enrolled.get(fine)).toEqual({ status: 'pending', reason_code: null });
      expect(enrolled.get(optedOut)).toEqual({ status: 'blocked', reason_code: 'OPTED_OUT' });
      expect(enrolled.get(onDnc)).toEqual({ status: 'blocked', reason_code: 'DNC' });
    });

    it('enrolls across batch boundaries without losing or repeating a lead', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      // One batch and 50 more (enrollment.ts ENROLL_BATCH), made by one import rather than a request per lead.
      const count = ENROLL_BATCH + 50;
      const rows = Array.from({ length: count }, (_, i) => `Big${i},${importPhone()},big`);
      const done = await importCsv(client, `First Name,Phone,wave\n${rows.join('\n')}\n`);
      expect(done).toMatchObject({ status: 'completed', created: count });
      const made = (await allLeads(client)).map((l) => l.id);
      await createLead(client, { additionalInfo: { wave: 'small' } });
      const campaign = await createCampaign(client, { filter: { additionalInfo: { wave: 'big' } }, startAt: LATER() });
      expect(campaign.counts).toMatchObject({ enrolled: count, pending: count });
      expect([...(await enrolledLeads(ts, campaign.id)).keys()].sort()).toEqual(made.sort());
    }, 120_000);

    it('never shows a snapshot still being written, and clears one a dead process left behind', async () => {
      const ts = ctx();
      const { client, org } = await freshOrg(ts);
      await createLead(client);
      const db = ts.server.store.db;
      const old = new Date(Date.now() - 2 * 3_600_000).toISOString();
      const row = (id: string, created_at: string) => ({
        organization_id: org,
        id,
        name: 'half',
        customer_profile: 'default',
        filter: '{}',
        start_at: created_at,
        daily_cap: 1,
        status: 'enrolling' as const,
        created_at,
        updated_at: created_at,
      });
      const stale = '01000000-0000-7000-8000-00000000a001';
      const fresh = '01000000-0000-7000-8000-00000000a002';
      await db
        .insertInto('campaigns')
        .values([row(stale, old), row(fresh, new Date().toISOString())])
        .execute();
      await db
        .insertInto('campaign_enrollments')
        .values({
          organization_id: org,
          campaign_id: stale,
          lead_id: '01000000-0000-7000-8000-00000000b001',
          status: 'pending',
          created_at: old,
          updated_at: old,
          reason_code: null,
          reason: null,
          message_id: null,
          opening_id: null,
          queued_day: null,
        })
        .execute();
      expect((await client.get('/campaigns')).body.campaigns).toEqual([]);
      expectError(await client.get(`/campaigns/${stale}`), 404, `Resource not found: Campaign with id ${stale}`);
      expectError(
        await client.post(`/campaigns/${fresh}/cancel`),
        404,
        `Resource not found: Campaign with id ${fresh}`,
      );
      const made = await createCampaign(client, { filter: {}, startAt: LATER() });
      const left = await db
        .selectFrom('campaigns')
        .select('id')
        .where('organization_id', '=', org)
        .orderBy('id')
        .execute();
      expect(left.map((r) => r.id)).toEqual([stale, fresh, made.id].filter((id) => id !== stale).sort());
      expect(
        await db.selectFrom('campaign_enrollments').select('lead_id').where('campaign_id', '=', stale).execute(),
      ).toEqual([]);
    });

    it('lists campaigns, pages them, and reports one with its state and counts', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      await createLead(client);
      const first = await createCampaign(client, { name: 'one', filter: {}, startAt: LATER() });
      const second = await createCampaign(client, { name: 'two', filter: {}, startAt: LATER() });
      const page1 = await client.get('/campaigns?limit=1');
      expect(page1.status).toBe(200);
      expect(page1.body.campaigns.map((c: { id: string }) => c.id)).toEqual([first.id]);
      const page2 = await client.get(`/campaigns?limit=1&nextToken=${page1.body.nextToken}`);
      expect(page2.body).toMatchObject({
        campaigns: [{ id: second.id, name: 'two', status: 'scheduled', dailyCap: 100, customerProfile: 'default' }],
        nextToken: null,
      });
      const one = await client.get(`/campaigns/${first.id}`);
      expect(one.body).toMatchObject({
        id: first.id,
        name: 'one',
        status: 'scheduled',
        filter: {},
        completedAt: null,
        cancelledAt: null,
      });
      expect(one.body.counts).toEqual({
        enrolled: 1,
        pending: 1,
        queued: 0,
        sent: 0,
        blocked: 0,
        blockedByReason: {},
        replied: 0,
        optedOut: 0,
        failed: 0,
        cancelled: 0,
        messagesSent: 0,
      });
    });

    it('answers clean 400s for invalid input and changes nothing', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      const base = { name: 'x', customerProfile: 'default', dailyCap: 10, filter: {} };
      const bad: [Record<string, unknown>, RegExp][] = [
        [{ ...base, dailyCap: 0 }, /dailyCap/],
        [{ ...base, dailyCap: 'ten' }, /dailyCap/],
        [{ ...base, name: '' }, /name/],
        [{ ...base, filter: { tag: ['typo'] } }, /tag/],
        [{ ...base, filter: { tags: 'hot' } }, /tags/],
        [{ ...base, filter: { createdAfter: 'yesterday' } }, /createdAfter/],
        [{ ...base, filter: { additionalInfo: { source: { nested: true } } } }, /additionalInfo/],
        [
          { ...base, filter: { createdAfter: '2026-02-01T00:00:00Z', createdBefore: '2026-01-01T00:00:00Z' } },
          /createdAfter must be before filter.createdBefore/,
        ],
        [
          { ...base, startAt: new Date(Date.now() + 400 * 24 * 3_600_000).toISOString() },
          /startAt must be within a year/,
        ],
        // A leap second passes the date-time format but no JavaScript date holds it: a 400, not a 500.
        [{ ...base, startAt: '2026-12-31T23:59:60Z' }, /^startAt must be an ISO 8601 timestamp/],
        [
          { ...base, filter: { createdAfter: '2026-06-30T23:59:60Z' } },
          /^filter.createdAfter must be an ISO 8601 timestamp/,
        ],
        [
          { ...base, filter: { createdBefore: '2026-06-30T23:59:60Z' } },
          /^filter.createdBefore must be an ISO 8601 timestamp/,
        ],
        [{ name: 'x', dailyCap: 10, filter: {} }, /customerProfile/],
      ];
      for (const [body, message] of bad) {
        const res = await client.post('/campaigns', body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.message).toMatch(message);
      }
      const unknown = await client.post('/campaigns', { ...base, customerProfile: 'nope' });
      expectError(unknown, 404, 'Resource not found: CustomerProfile with name nope');
      expect((await client.get('/campaigns')).body.campaigns).toEqual([]);
    });

    it('answers 409 for impossible transitions and 404 for another organization', async () => {
      const ts = ctx();
      const { client } = await freshOrg(ts);
      const other = await freshOrg(ts);
      const campaign = await createCampaign(client, { filter: {}, startAt: LATER() });
      expectError(
        await client.post(`/campaigns/${campaign.id}/resume`),
        409,
        `Campaign ${campaign.id} is scheduled: only a paused campaign can be resumed`,
      );
      expect((await client.post(`/campaigns/${campaign.id}/pause`)).body.status).toBe('paused');
      expectError(
        await client.post(`/campaigns/${campaign.id}/pause`),
        409,
        `Campaign ${campaign.id} is paused: only a scheduled or running campaign can be paused`,
      );
      expect((await client.post(`/campaigns/${campaign.id}/resume`)).body.status).toBe('scheduled');
      const cancelled = await client.post(`/campaigns/${campaign.id}/cancel`);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelledAt: expect.any(String) });
      expectError(
        await client.post(`/campaigns/${campaign.id}/resume`),
        409,
        `Campaign ${campaign.id} is cancelled: only a paused campaign can be resumed`,
      );
      expectError(
        await client.post(`/campaigns/${campaign.id}/cancel`),
        409,
        `Campaign ${campaign.id} is cancelled: only a scheduled, running or paused campaign can be cancelled`,
      );
      for (const path of [`/campaigns/${campaign.id}`])
        expectError(await other.client.get(path), 404, `Resource not found: Campaign with id ${campaign.id}`);
      for (const action of ['pause', 'resume', 'cancel'])
        expectError(
          await other.client.post(`/campaigns/${campaign.id}/${action}`),
          404,
          `Resource not found: Campaign with id ${campaign.id}`,
        );
      expect((await other.client.get('/campaigns')).body.campaigns).toEqual([]);
    });

    it('asks leads:write to create and leads:read to read', async () => {
      const ts = ctx();
      const reader = await ts.clientWithScopes(['leads:read']);
      expect(
        (await reader.post('/campaigns', { name: 'x', customerProfile: 'default', dailyCap: 1, filter: {} })).status,
      ).toBe(403);
      expect((await reader.get('/campaigns')).status).toBe(200);
      const writer = await ts.clientWithScopes(['leads:write']);
      expect((await writer.get('/campaigns')).status).toBe(403);
    });
  },
  { PARLEY_WORKER_POLL_MS: '20' },
);
