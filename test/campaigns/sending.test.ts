import { afterAll, expect, it } from 'vitest';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { eventually, FAST_WEBHOOKS, receiverPool, registerEndpoint } from '../support/webhooks.js';
import { enqueueJob } from '../../src/jobs/jobs.repository.js';
import { createCampaign, enrolledLeads, freshOrg } from './helpers.js';

const SID = 'ACcampaigns';
const TOKEN = 'campaign-secret';
const fake = await startFakeTwilio(SID, TOKEN);
afterAll(() => fake.close());

const ENV = {
  ...FAST_WEBHOOKS,
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_API_BASE_URL: fake.url,
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
};
let numbers = 0;
const sendingNumber = () => `+1628777${String(1000 + ((process.pid + numbers++) % 9000)).padStart(4, '0')}`;

/** Texts the fake Twilio accepted for these phones. */
const sentTo = (phones: string[]) => fake.accepted('Messages', (p) => phones.includes(p.To ?? ''));

async function org(ts: TestServer, hours: Record<string, unknown>) {
  const o = await freshOrg(ts);
  const res = await o.client.patch('/settings', { sendingNumber: sendingNumber(), ...hours });
  if (res.status !== 200) throw new Error(`settings: ${res.status} ${JSON.stringify(res.body)}`);
  expect(
    (await o.client.post('/customerProfiles', { name: 'promo', openingMessage: 'Hi {{firstName}}, spring offer!' }))
      .status,
  ).toBe(201);
  return o;
}

async function leads(client: Client, n: number, tag: string): Promise<{ ids: string[]; phones: string[] }> {
  const ids: string[] = [];
  const phones: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const id = await createLead(client, { firstName: `L${i}`, additionalInfo: { list: tag } });
    ids.push(id);
    phones.push((await client.get(`/leads/${id}`)).body.phone as string);
  }
  return { ids, phones };
}

const counts = async (client: Client, id: string) =>
  (await client.get(`/campaigns/${id}`)).body.counts as Record<string, any>;
const state = async (client: Client, id: string) => (await client.get(`/campaigns/${id}`)).body.status as string;

// Unlimited hours of the organization; the legal 08:00-21:00 still holds where the leads are (+1 415: Los Angeles), so these tests run in its daytime.
const ALWAYS_OPEN = { timeZone: 'UTC', contactHours: { start: '00:00', end: '00:00' } };
const LA_HOURS = { timeZone: 'America/Los_Angeles', contactHours: { start: '08:00', end: '21:00' } };

describeEachDialect(
  'campaigns: sending through the send path',
  (ctx) => {
    startEachTestInDaytime(ctx);

    const receiver = receiverPool();

    it('respects the daily cap across days (in the organization zone), then completes; blocked leads never reach the provider', async () => {
      const ts = ctx();
      ts.clock.set('2026-08-03T16:00:00Z'); // 09:00 in Los Angeles, where the leads' numbers are (the legal window holds whatever the hours)
      const { client } = await org(ts, ALWAYS_OPEN);
      const { ids, phones } = await leads(client, 5, 'cap');
      const blockedId = await createLead(client, { additionalInfo: { list: 'cap' } });
      const blockedPhone = (await client.get(`/leads/${blockedId}`)).body.phone as string;
      expect((await client.post(`/leads/${blockedId}/unsubscribe`, {})).status).toBe(200);
      const campaign = await createCampaign(client, {
        customerProfile: 'promo',
        filter: { additionalInfo: { list: 'cap' } },
        dailyCap: 2,
      });
      expect(campaign.status).toBe('running');
      await ts.runDue();
      expect(sentTo(phones)).toHaveLength(2); // two sent on day one, and no more
      expect((await counts(client, campaign.id)).sent).toBe(2); // recorded sent
      expect(await counts(client, campaign.id)).toMatchObject({
        enrolled: 6,
        pending: 3,
        sent: 2,
        messagesSent: 2,
        blocked: 1,
        blockedByReason: { OPTED_OUT: 1 },
      });
      // The first two leads in creation order, switched to the campaign's profile.
      expect(
        sentTo(phones)
          .map((r) => r.params.To)
          .sort(),
      ).toEqual(phones.slice(0, 2).sort());
      expect((await client.get(`/leads/${ids[0]}`)).body.customerProfile).toBe('promo');
      expect(sentTo(phones)[0]!.params.Body).toMatch(/^Hi L[01], spring offer!$/);

      ts.clock.set('2026-08-04T00:00:30Z');
      await ts.runDue();
      expect(sentTo(phones)).toHaveLength(4); // two more on day two, and no more
      ts.clock.set('2026-08-05T00:00:30Z');
      await ts.runDue();
      // The last one on day three, and completed.
      expect(sentTo(phones)).toHaveLength(5);
      expect(await state(client, campaign.id)).toBe('completed');
      expect((await counts(client, campaign.id)).sent).toBe(5);
      expect(await counts(client, campaign.id)).toMatchObject({
        enrolled: 6,
        pending: 0,
        queued: 0,
        sent: 5,
        blocked: 1,
      });
      expect(new Set(sentTo(phones).map((r) => r.params.To)).size).toBe(5);
      expect(sentTo([blockedPhone])).toHaveLength(0);
    });

    it('contact hours: at night nothing goes out (the openings wait), in the morning they do', async () => {
      const ts = ctx();
      ts.clock.set('2026-08-11T06:00:00Z'); // 23:00 in Los Angeles
      const { client } = await org(ts, LA_HOURS);
      const { ids, phones } = await leads(client, 2, 'night');
      const campaign = await createCampaign(client, {
        customerProfile: 'promo',
        filter: { additionalInfo: { list: 'night' } },
        dailyCap: 10,
      });
      await ts.runDue();
      expect((await counts(client, campaign.id)).queued).toBe(2); // queued
      const [msg] = (await client.get(`/leads/${ids[0]}/messages`)).body.messages;
      expect((await client.get(`/leads/${ids[0]}/messages`)).body.messages[0]?.statusCode).toBe('CONTACT_HOURS');
      expect(sentTo(phones)).toHaveLength(0);
      expect(msg!.status).toBe('scheduled');
      ts.clock.set('2026-08-11T15:01:00Z'); // 08:01 in Los Angeles
      await ts.runDue();
      expect(sentTo(phones)).toHaveLength(2); // sent in the morning
      expect((await counts(client, campaign.id)).sent).toBe(2); // counted as sent
    });

    it('pause stops further sends and takes back a waiting opening; resume continues; cancel stops for good', async () => {
      const ts = ctx();
      ts.clock.set('2026-08-18T06:00:00Z'); // night in Los Angeles
      const { client } = await org(ts, LA_HOURS);
      const { phones } = await leads(client, 3, 'pause');
      const campaign = await createCampaign(client, {
        customerProfile: 'promo',
        filter: { additionalInfo: { list: 'pause' } },
        dailyCap: 1,
      });
      await ts.runDue();
      expect((await counts(client, campaign.id)).queued).toBe(1); // one queued
      const paused = await client.post(`/campaigns/${campaign.id}/pause`);
      expect(paused.status).toBe(200);
      expect(paused.body).toMatchObject({ status: 'paused', counts: { queued: 0, pending: 3 } });
      ts.clock.set('2026-08-18T16:00:00Z'); // morning: the taken-back opening must not go out
      await ts.runDue();
      expect(sentTo(phones)).toHaveLength(0);
      const resumed = await client.post(`/campaigns/${campaign.id}/resume`);
      expect(resumed.body.status).toBe('running');
      await ts.runDue();
      expect(sentTo(phones)).toHaveLength(1); // one sent after resume, and no more: the cap is one a day
      expect((await counts(client, campaign.id)).sent).toBe(1);
      const cancelled = await client.post(`/campaigns/${campaign.id}/cancel`);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', counts: { sent: 1, pending: 0, cancelled: 2 } });
      ts.clock.set('2026-08-19T16:00:00Z');
      await ts.runDue();
      expect(sentTo(phones)).toHaveLength(1);
      expect(await state(client, campaign.id)).toBe('cancelled');
    });

    it("a reply stops the lead's waiting campaign message; an opt-out after enrollment is counted", async () => {
      const ts = ctx();
      ts.clock.set('2026-08-25T06:00:00Z'); // night in Los Angeles
      const { client } = await org(ts, LA_HOURS);
      const { ids, phones } = await leads(client, 3, 'reply');
      const campaign = await createCampaign(client, {
        customerProfile: 'promo',
        filter: { additionalInfo: { list: 'reply' } },
        dailyCap: 10,
      });
      await ts.runDue();
      expect((await counts(client, campaign.id)).queued).toBe(3); // three queued
      expect((await client.post('/inbound', { channel: 'sms', from: phones[0], text: 'who is this?' })).status).toBe(
        200,
      );
      expect((await client.post(`/leads/${ids[1]}/unsubscribe`, {})).status).toBe(200);
      const [stopped] = (await client.get(`/leads/${ids[0]}/messages`)).body.messages;
      expect(stopped).toMatchObject({ status: 'blocked', statusCode: 'CAMPAIGN_STOPPED' });
      ts.clock.set('2026-08-25T16:00:00Z');
      await ts.runDue();
      expect(sentTo([phones[2]!])).toHaveLength(1); // the third sent
      expect((await counts(client, campaign.id)).sent).toBe(1);
      expect(sentTo(phones.slice(0, 2))).toHaveLength(0);
      expect(await counts(client, campaign.id)).toMatchObject({
        enrolled: 3,
        replied: 1,
        optedOut: 1,
        sent: 1,
        messagesSent: 1,
        queued: 0,
      });
      const enrolled = await enrolledLeads(ts, campaign.id);
      expect(enrolled.get(ids[0]!)?.status).toBe('replied');
    });

    it('pause takes back an opening the agent wrote that waits for contact hours; it is not sent in the morning', async () => {
      const ts = ctx();
      ts.clock.set('2026-08-19T06:00:00Z'); // night in Los Angeles
      const { client } = await org(ts, LA_HOURS);
      const { ids, phones } = await leads(client, 2, 'composed-pause');
      // The default profile has no template: the agent writes the opening, then it waits for the window.
      // A cap of one keeps the campaign running (the second lead waits for tomorrow), so it can be paused.
      const campaign = await createCampaign(client, {
        customerProfile: 'default',
        filter: { additionalInfo: { list: 'composed-pause' } },
        dailyCap: 1,
      });
      // Written and waiting. Stepped until then: in a loaded full run one step once ended before the opening's
      // send had been judged (the campaign's run and the agent's turn are separate jobs).
      await eventually('written and waiting', async () => {
        await ts.runDue();
        return (await client.get(`/leads/${ids[0]}/messages`)).body.messages[0]?.statusCode === 'CONTACT_HOURS';
      });
      const paused = await client.post(`/campaigns/${campaign.id}/pause`);
      expect(paused.body).toMatchObject({ status: 'paused', counts: { queued: 0, pending: 2 } });
      expect((await client.get(`/leads/${ids[0]}/messages`)).body.messages[0]).toMatchObject({
        status: 'blocked',
        statusCode: 'CAMPAIGN_PAUSED',
      });
      ts.clock.set('2026-08-19T16:00:00Z'); // morning
      await ts.runDue();
      expect(sentTo(phones)).toHaveLength(0);
    });

    it('a pending lead whose phone is now on DNC is screened by the run: opted out with the code, no message made', async () => {
      const ts = ctx();
      ts.clock.set('2026-08-26T17:00:00Z');
      const { client } = await org(ts, ALWAYS_OPEN);
      const { ids, phones } = await leads(client, 2, 'screened');
      const listed = `+1628555${String(1000 + (process.pid % 9000)).padStart(4, '0')}`;
      expect((await client.post('/dnc/register', { phone: listed })).status).toBe(200);
      const campaign = await createCampaign(client, {
        customerProfile: 'promo',
        filter: { additionalInfo: { list: 'screened' } },
        dailyCap: 10,
        startAt: '2026-08-26T18:00:00Z',
      });
      // After enrollment, a new number that is already listed: only the run's screen can see it.
      expect((await client.patch(`/leads/${ids[0]}`, { phone: listed })).status).toBe(200);
      ts.clock.set('2026-08-26T18:00:05Z');
      await ts.runDue();
      expect(await state(client, campaign.id)).toBe('completed'); // completed
      expect(sentTo([phones[1]!])).toHaveLength(1); // the other sent
      expect((await enrolledLeads(ts, campaign.id)).get(ids[0]!)).toEqual({ status: 'opted_out', reason_code: 'DNC' });
      expect((await client.get(`/leads/${ids[0]}/messages`)).body.messages).toEqual([]);
      expect(sentTo([listed])).toHaveLength(0);
    });

    it('an opt-out through the API after the opening went out counts the lead opted out, not sent: unsubscribe and DNC alike', async () => {
      const ts = ctx();
      ts.clock.set('2026-09-29T17:00:00Z');
      const { client } = await org(ts, ALWAYS_OPEN);
      const { ids, phones } = await leads(client, 4, 'after-sent');
      const campaign = await createCampaign(client, {
        customerProfile: 'promo',
        filter: { additionalInfo: { list: 'after-sent' } },
        dailyCap: 10,
      });
      await ts.runDue();
      expect((await counts(client, campaign.id)).sent).toBe(4); // all sent
      expect((await client.post(`/leads/${ids[0]}/unsubscribe`, {})).status).toBe(200);
      expect((await client.post(`/leads/${ids[1]}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
      expect((await client.post('/dnc/register', { phone: phones[2] })).status).toBe(200);
      // Email only: the campaign's channel (sms) is still open, the lead still counts as reached.
      expect((await client.patch(`/leads/${ids[3]}`, { email: `after-sent-${process.pid}@example.com` })).status).toBe(
        200,
      );
      expect((await client.post(`/leads/${ids[3]}/unsubscribe`, { channels: ['email'] })).status).toBe(200);
      expect(await counts(client, campaign.id)).toMatchObject({ enrolled: 4, sent: 1, optedOut: 3, messagesSent: 4 });
      const enrolled = await enrolledLeads(ts, campaign.id);
      expect([0, 1, 2, 3].map((i) => enrolled.get(ids[i]!)?.status)).toEqual([
        'opted_out',
        'opted_out',
        'opted_out',
        'queued',
      ]);
    });

    it('message.sent carries the campaign id', async () => {
      const ts = ctx();
      ts.clock.set('2026-09-01T17:00:00Z');
      const { client } = await org(ts, ALWAYS_OPEN);
      const r = await receiver();
      await registerEndpoint(client, r, ['message.sent']);
      const { ids } = await leads(client, 1, 'hook');
      const campaign = await createCampaign(client, {
        customerProfile: 'promo',
        filter: { additionalInfo: { list: 'hook' } },
        dailyCap: 10,
      });
      await ts.runDue();
      const got = r.received.find((d) => d.json.event === 'message.sent' && d.json.data.leadId === ids[0]);
      expect(got?.json.data).toMatchObject({
        leadId: ids[0],
        campaignId: campaign.id,
        profile: 'promo',
        isAiGenerated: true,
      });
      // A send of the organization's own carries no campaign id.
      expect((await client.post(`/leads/${ids[0]}/sendMessage`, { message: 'plain' })).status).toBe(200);
      await ts.runDue();
      const plain = r.received.find((d) => d.json.event === 'message.sent' && d.json.data.text === 'plain');
      expect(plain?.json.data).toBeDefined();
      expect('campaignId' in plain!.json.data).toBe(false);
    });

    it('a profile without a template: the agent writes the opening, which carries the campaign id and is counted', async () => {
      const ts = ctx();
      ts.clock.set('2026-09-08T17:00:00Z');
      const { client } = await org(ts, ALWAYS_OPEN);
      const { ids, phones } = await leads(client, 1, 'composed');
      const campaign = await createCampaign(client, {
        customerProfile: 'default',
        filter: { additionalInfo: { list: 'composed' } },
        dailyCap: 10,
      });
      const step = await ts.runDue();
      // What the step ran, and the lead's jobs and messages, say where a send that did not happen stopped.
      const trail = async () =>
        JSON.stringify({
          ran: step.jobs,
          jobs: await ts.server.store.db
            .selectFrom('jobs')
            .select(['name', 'status', 'run_at', 'attempts', 'last_error'])
            .where(
              'organization_id',
              '=',
              ts.server.store.db.selectFrom('leads').select('organization_id').where('id', '=', ids[0]!),
            )
            .execute(),
          messages: await ts.server.store.db
            .selectFrom('messages')
            .select(['status', 'status_code', 'status_reason', 'scheduled_at'])
            .where('lead_id', '=', ids[0]!)
            .execute(),
        });
      expect(sentTo(phones), await trail()).toHaveLength(1); // sent
      const row = await ts.server.store.db
        .selectFrom('messages')
        .select(['campaign_id', 'is_ai_generated'])
        .where('lead_id', '=', ids[0]!)
        .where('direction', '=', 'outbound')
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ campaign_id: campaign.id, is_ai_generated: 1 });
      await ts.runDue();
      expect((await counts(client, campaign.id)).sent).toBe(1); // counted
      expect(await state(client, campaign.id)).toBe('completed'); // completed
    });

    it('a lead erased after enrollment is counted failed and never contacted; the others go out at startAt', async () => {
      const ts = ctx();
      ts.clock.set('2026-09-22T17:00:00Z');
      const { client } = await org(ts, ALWAYS_OPEN);
      const { ids, phones } = await leads(client, 2, 'erased');
      const campaign = await createCampaign(client, {
        customerProfile: 'promo',
        filter: { additionalInfo: { list: 'erased' } },
        dailyCap: 10,
        startAt: '2026-09-22T19:00:00Z',
      });
      expect(campaign.status).toBe('scheduled');
      expect((await client.del(`/leads/${ids[0]}`)).status).toBe(200);
      await ts.runDue();
      expect(sentTo(phones)).toHaveLength(0);
      ts.clock.set('2026-09-22T19:00:05Z');
      await ts.runDue();
      expect(await state(client, campaign.id)).toBe('completed'); // completed
      expect(sentTo([phones[1]!])).toHaveLength(1); // the other sent
      expect(sentTo([phones[0]!])).toHaveLength(0);
      expect((await counts(client, campaign.id)).sent).toBe(1); // counted
      expect(await counts(client, campaign.id)).toMatchObject({ enrolled: 2, failed: 1, sent: 1 });
    });

    it('several runs of one campaign at once never open a lead twice nor pass the cap', async () => {
      const ts = ctx();
      ts.clock.set('2026-09-15T17:00:00Z');
      const { client, org: orgId } = await org(ts, ALWAYS_OPEN);
      const { phones } = await leads(client, 12, 'race');
      const startAt = '2026-09-15T18:00:00.000Z';
      const campaign = await createCampaign(client, {
        customerProfile: 'promo',
        filter: { additionalInfo: { list: 'race' } },
        dailyCap: 7,
        startAt,
      });
      // Four more jobs of the same generation, due together with the campaign's own: the worker runs them side by side.
      const db = ts.server.store.db;
      for (let i = 0; i < 4; i += 1)
        await enqueueJob(
          db,
          orgId,
          'campaign.run',
          { campaignId: campaign.id, generation: 0 },
          new Date(startAt),
          new Date().toISOString(),
        );
      ts.clock.set('2026-09-15T18:00:05Z');
      await ts.runDue();
      expect(sentTo(phones).length).toBeGreaterThanOrEqual(7); // the cap reached
      await ts.runDue();
      expect(sentTo(phones)).toHaveLength(7);
      expect(new Set(sentTo(phones).map((r) => r.params.To)).size).toBe(7);
      const rows = await db
        .selectFrom('messages')
        .select('lead_id')
        .where('organization_id', '=', orgId)
        .where('campaign_id', '=', campaign.id)
        .execute();
      expect(rows).toHaveLength(7);
      await ts.runDue();
      expect((await counts(client, campaign.id)).sent).toBe(7); // recorded sent
      expect(await counts(client, campaign.id)).toMatchObject({ enrolled: 12, sent: 7, pending: 5 });
    });
  },
  ENV,
);
