import { expect, it } from 'vitest';
import { createLead, describeEachDialect } from '../support/harness.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { until } from '../support/assert.js';

const ALWAYS_OPEN = { contactHours: { start: '00:00', end: '00:00' } };

describeEachDialect(
  'switchCustomerProfile with sendMessage',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('schedules the new profile opening message, rendered, after the effective delay', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      expect(
        (
          await ts.acme.post('/customerProfiles', {
            name: 'renewals',
            openingMessage: 'Hi {{firstName}}, about your {{plan}} plan{{missing}}!',
          })
        ).status,
      ).toBe(201);
      const leadId = await createLead(ts.acme, { firstName: 'Ann', additionalInfo: { plan: 'gold' } });
      const before = ts.clock.now().getTime();
      const res = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, {
        profile: 'renewals',
        sendMessage: true,
        messageDelayMins: 30,
      });
      expect(res.body).toEqual({
        message: 'Switched profile successfully.',
        sendMessage: true,
        messageDelayHours: 0,
        messageDelayMins: 30,
        opening: { status: 'scheduled', messageId: expect.any(String), reason: null },
      });
      const [msg] = (await ts.acme.get(`/leads/${leadId}/messages`)).body.messages;
      expect(msg!.id).toBe(res.body.opening!.messageId);
      expect(msg).toMatchObject({
        content: { text: 'Hi Ann, about your gold plan!' },
        status: 'scheduled',
        owner: 'user',
        isAiGenerated: true,
        channel: 'sms',
      });
      const due = new Date(msg!.scheduledTime!).getTime() - before;
      expect(due).toBeGreaterThanOrEqual(30 * 60_000 - 1000);
      expect(due).toBeLessThan(30 * 60_000 + 10_000);
    });

    it('sends at once with no delay, through the gate', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      await ts.acme.post('/customerProfiles', { name: 'welcome-now', openingMessage: 'Welcome {{firstName}}' });
      const leadId = await createLead(ts.acme, { firstName: 'Bo' });
      await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'welcome-now', sendMessage: true });
      const status = await until(
        async () => (await ts.acme.get(`/leads/${leadId}/messages`)).body.messages[0]?.status ?? '',
        (s) => s === 'sent',
        10_000,
        { what: 'the opening sent', every: 30 },
      );
      expect(status).toBe('sent');
    });

    it('does not schedule anything without sendMessage', async () => {
      const ts = ctx();
      await ts.acme.post('/customerProfiles', { name: 'greeter-quiet', openingMessage: 'Hello {{firstName}}' });
      const leadId = await createLead(ts.acme);
      const res = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'greeter-quiet' });
      expect(res.body).toEqual({
        message: 'Switched profile successfully.',
        sendMessage: false,
        messageDelayHours: 0,
        messageDelayMins: 0,
      });
      await ts.runDue();
      expect((await ts.acme.get(`/leads/${leadId}/messages`)).body.messages).toHaveLength(0);
    });

    it('a lead greeted on creation by its profile is not greeted again by a switch to that same profile', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      await ts.acme.post('/customerProfiles', { name: 'welcome-once', openingMessage: 'Welcome {{firstName}}' });
      const leadId = await createLead(ts.acme, { firstName: 'Dee', customerProfile: 'welcome-once' });
      const [greeting] = (await ts.acme.get(`/leads/${leadId}/messages`)).body.messages;
      expect(greeting!.content.text).toBe('Welcome Dee');
      const res = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, {
        profile: 'welcome-once',
        sendMessage: true,
      });
      expect(res.body.opening).toEqual({
        status: 'not_sent',
        messageId: greeting!.id,
        reason: 'the opening of customer profile welcome-once was already sent to this lead',
      });
      expect((await ts.acme.get(`/leads/${leadId}/messages`)).body.messages).toHaveLength(1);
    });

    it('does not send the same template opening twice when the lead is switched to the same profile again', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      await ts.acme.post('/customerProfiles', { name: 'once', openingMessage: 'Hi {{firstName}}, once only' });
      const leadId = await createLead(ts.acme, { firstName: 'Cy' });
      const first = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, {
        profile: 'once',
        sendMessage: true,
      });
      expect(first.body.opening).toMatchObject({ status: 'scheduled', reason: null });
      const again = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, {
        profile: 'once',
        sendMessage: true,
      });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({
        message: 'Switched profile successfully.',
        sendMessage: true,
        opening: { status: 'not_sent', messageId: first.body.opening!.messageId },
      });
      expect(again.body.opening!.reason).toBe('the opening of customer profile once was already sent to this lead');
      const texts = (await ts.acme.get(`/leads/${leadId}/messages`)).body.messages.map(
        (m: { content: { text: string } }) => m.content.text,
      );
      expect(texts).toEqual(['Hi Cy, once only']);
    });
  },
  { PARLEY_WORKER_POLL_MS: '20' },
);
