import { afterAll, expect, it } from 'vitest';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { outboxFor } from '../support/events.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { signedWebhook } from '../support/twilio-webhooks.js';
import { freshOrg } from '../support/webhooks.js';
import { ALWAYS_OPEN, PUBLIC, sendingNumber, TOKEN, twilioEnv, twimlAttr } from '../voice/support.js';

const fake = await startFakeTwilio('ACtest', TOKEN);
afterAll(() => fake.close());

/**
 * Someone who writes or calls first, from an address no lead holds, becomes a
 * lead when the organization asks for it (settings `inboundLeads`); by
 * default they are recorded and never answered.
 */
describeEachDialect(
  'leads made from inbound messages and calls',
  (ctx) => {
    startEachTestInDaytime(ctx);

    async function organization(ts: TestServer, inboundLeads?: unknown) {
      const client = await freshOrg(ts, 'inbound-leads');
      const number = sendingNumber();
      const patch = { ...ALWAYS_OPEN, sendingNumber: number, ...(inboundLeads === undefined ? {} : { inboundLeads }) };
      const res = await client.patch('/settings', patch);
      expect(res.status).toBe(200);
      return { client, number };
    }

    const leadsWith = async (client: Client, phone: string) =>
      (await client.get(`/leads?phone=${encodeURIComponent(phone)}`)).body.leads as { id: string }[];

    it('is off by default: an unknown sender is recorded, no lead is made, nothing is answered', async () => {
      const ts = ctx();
      const { client } = await organization(ts);
      expect((await client.get('/settings')).body.inboundLeads).toBeNull();
      const from = uniquePhone();
      const res = await client.post('/inbound', { channel: 'sms', from, text: 'Hi, is this still available?' });
      expect(res.body).toMatchObject({ leadId: null, action: 'unmatched' });
      await ts.runDue();
      expect(await leadsWith(client, from)).toEqual([]);
      expect(fake.accepted('Messages', (p) => p.To === from)).toEqual([]);
    });

    it('refuses a profile that does not exist, and changes nothing', async () => {
      const ts = ctx();
      const { client } = await organization(ts);
      const res = await client.patch('/settings', { inboundLeads: { customerProfile: 'nobody' } });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('inboundLeads.customerProfile: no customer profile named nobody');
      expect((await client.get('/settings')).body.inboundLeads).toBeNull();
      const extra = await client.patch('/settings', { inboundLeads: { customerProfile: 'default', ai: true } });
      expect(extra.status).toBe(400);
    });

    it('makes a lead of an unknown texter, emits lead.created (source inbound), and the agent answers', async () => {
      const ts = ctx();
      const { client, number } = await organization(ts, {});
      expect((await client.get('/settings')).body.inboundLeads).toEqual({ customerProfile: 'default', isAiOn: true });
      // The scripted agent (no model configured) answers with the profile's next question.
      expect(
        (await client.post('/customerProfiles', { name: 'quotes', questions: ['When do you move?'] })).status,
      ).toBe(201);
      expect((await client.patch('/settings', { inboundLeads: { customerProfile: 'quotes' } })).status).toBe(200);
      const from = uniquePhone();
      const res = await signedWebhook(ts, PUBLIC, TOKEN, '/v1/providers/twilio/sms', {
        From: from,
        To: number,
        Body: 'Hi, I would like a quote',
        MessageSid: `SM${from.slice(1).padEnd(32, '0')}`,
      });
      expect(res.status).toBe(200);
      const [made] = await leadsWith(client, from);
      expect(made).toBeDefined();
      const lead = (await client.get(`/leads/${made!.id}`)).body;
      expect(lead).toMatchObject({
        phone: from,
        email: null,
        customerProfile: 'quotes',
        isAiOn: true,
        hasReplied: true,
      });
      const created = await outboxFor(ts, made!.id, 'lead.created');
      expect(created).toHaveLength(1);
      expect(created[0]!.data).toMatchObject({ source: 'inbound', channel: 'sms', phone: from });
      // No opening: they wrote first, and the agent answers their message.
      await ts.runDue();
      const sent = fake.accepted('Messages', (p) => p.To === from);
      expect(sent.map((m) => m.params.Body)).toEqual(['When do you move?']);
      const messages = (await client.get(`/leads/${made!.id}/messages`)).body.messages as {
        direction: string;
        content: { text: string };
      }[];
      expect(messages.map((m) => m.direction)).toEqual(['inbound', 'outbound']);
      expect(messages[0]!.content.text).toBe('Hi, I would like a quote');
      const day = ts.clock.now().toISOString().slice(0, 10);
      const bySource = await client.get(`/analytics/summary?from=${day}&to=${day}&groupBy=source`);
      expect(bySource.body.groups).toEqual([expect.objectContaining({ key: 'inbound', leads: 1 })]);
    });

    it('uses the chosen profile and AI setting, and makes one lead of an email sender', async () => {
      const ts = ctx();
      const { client } = await organization(ts, {});
      expect((await client.post('/customerProfiles', { name: 'walk-ins' })).status).toBe(201);
      const set = await client.patch('/settings', { inboundLeads: { customerProfile: 'walk-ins', isAiOn: false } });
      expect(set.body.inboundLeads).toEqual({ customerProfile: 'walk-ins', isAiOn: false });
      const from = `walk.in.${Date.now()}@example.com`;
      const first = await client.post('/inbound', { channel: 'email', from, subject: 'Quote', text: 'Hello' });
      const second = await client.post('/inbound', { channel: 'email', from: from.toUpperCase(), text: 'Anyone?' });
      expect(first.body.leadId).toBeTruthy();
      expect(second.body.leadId).toBe(first.body.leadId);
      const lead = (await client.get(`/leads/${first.body.leadId}`)).body;
      expect(lead).toMatchObject({ email: from, phone: null, customerProfile: 'walk-ins', isAiOn: false });
      const report = await ts.runDue();
      // The AI is off: the step ran and nothing was composed or sent for the lead.
      expect(report.jobs.filter((j) => j.name === 'ai.turn' || j.name === 'message.send')).toEqual([]);
    });

    it('a STOP from an unknown number makes an opted-out lead, so a later create cannot text them', async () => {
      const ts = ctx();
      const { client } = await organization(ts, {});
      const from = uniquePhone();
      const res = await client.post('/inbound', { channel: 'sms', from, text: 'STOP' });
      expect(res.body.action).toBe('opted_out');
      const consent = await client.get(`/leads/${res.body.leadId}/consent`);
      expect(consent.status).toBe(200);
      expect(consent.body.records).toEqual([
        expect.objectContaining({ channel: 'sms', action: 'optOut', inboundMessageId: expect.any(String) }),
      ]);
      const again = await client.post('/leads/create', { firstName: 'Later', phone: from });
      expect(again.status).toBe(409);
    });

    it('two first messages at once from one number make one lead holding both', async () => {
      const ts = ctx();
      const { client } = await organization(ts, {});
      const from = uniquePhone();
      const answers = await Promise.all(
        ['one', 'two', 'three'].map((text) => client.post('/inbound', { channel: 'sms', from, text })),
      );
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      const ids = new Set(answers.map((a) => a.body.leadId));
      expect(ids.size).toBe(1);
      const messages = (await client.get(`/leads/${[...ids][0]}/messages`)).body.messages as unknown[];
      expect(messages).toHaveLength(3);
      expect(await leadsWith(client, from)).toHaveLength(1);
    });

    it('an unknown caller is answered by the agent when inbound leads are on', async () => {
      const ts = ctx();
      const { client, number } = await organization(ts, {});
      const from = uniquePhone();
      const res = await signedWebhook(ts, PUBLIC, TOKEN, '/v1/providers/twilio/voice', {
        From: from,
        To: number,
        CallSid: `CA${from.slice(1).padEnd(32, '7')}`,
      });
      expect(res.status).toBe(200);
      expect(twimlAttr(String(res.body), 'ConversationRelay', 'url')).toMatch(/^wss:\/\/parley\.example\.com\//);
      const [made] = await leadsWith(client, from);
      const calls = (await client.get(`/leads/${made!.id}/calls`)).body.calls;
      expect(calls[0]).toMatchObject({ direction: 'INBOUND', status: 'in-progress' });
    });
  },
  twilioEnv(fake),
);
