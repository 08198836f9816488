import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { createLead, describeEachDialect, uniquePhone, type TestServer } from '../support/harness.js';
import { signedWebhook } from '../support/twilio-webhooks.js';

const SID = 'ACreplay';
const TOKEN = 'replay-token';
const PUBLIC = 'https://parley.example.com';

const fake = await startFakeTwilio(SID, TOKEN);
afterAll(() => fake.close());

const ENV = {
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_API_BASE_URL: fake.url,
  PARLEY_PUBLIC_URL: PUBLIC,
  PARLEY_WORKER_POLL_MS: '20',
};

let sids = 0;
const sid = (prefix: string) =>
  `${prefix}${process.pid.toString(16)}${(++sids).toString(16).padStart(24, '0')}`.slice(0, 34);

/**
 * A correctly signed webhook delivered again (Twilio's retry, or a recorded
 * request replayed by anyone who captured it) is processed once, even after
 * the lead it concerned was erased: the ids of processed deliveries outlive
 * the lead's rows (provider_receipts).
 */
describeEachDialect(
  'replayed Twilio webhooks',
  (ctx) => {
    const OURS = '+16285550777';
    beforeAll(async () => {
      expect(
        (await ctx().acme.patch('/settings', { contactHours: { start: '00:00', end: '00:00' }, sendingNumber: OURS }))
          .status,
      ).toBe(200);
    });
    const sms = (ts: TestServer, params: Record<string, string>) =>
      signedWebhook(ts, PUBLIC, TOKEN, '/v1/providers/twilio/sms', params);
    const smsStatus = async (ts: TestServer, id: string) =>
      (await ts.acme.get(`/leads/${id}`)).body.subscriptions.sms as string;

    it('an old START replayed after the lead was erased and re-created does not lift the new STOP', async () => {
      const ts = ctx();
      const phone = uniquePhone();
      const first = await createLead(ts.acme, { phone });
      const text = (body: string) => ({ AccountSid: SID, MessageSid: sid('SM'), From: phone, To: OURS, Body: body });
      const stop = text('STOP');
      const start = text('START');
      expect((await sms(ts, stop)).status).toBe(200);
      expect(await smsStatus(ts, first)).toBe('unsubscribed');
      expect((await sms(ts, start)).status).toBe(200);
      expect(await smsStatus(ts, first)).toBe('subscribed');

      expect((await ts.acme.del(`/leads/${first}`)).status).toBe(200);
      const second = await createLead(ts.acme, { phone });
      expect(await smsStatus(ts, second)).toBe('subscribed');
      // The new lead opts out by its own STOP.
      expect((await sms(ts, text('STOP'))).status).toBe(200);
      expect(await smsStatus(ts, second)).toBe('unsubscribed');
      const ledger = async () => (await ts.acme.get(`/leads/${second}/consent`)).body.records as { action: string }[];
      expect((await ledger()).map((r) => r.action)).toEqual(['optOut']);

      // The first lead's START, replayed byte for byte with its valid signature; and its STOP.
      expect((await sms(ts, start)).status).toBe(200);
      expect((await sms(ts, stop)).status).toBe(200);
      expect(await smsStatus(ts, second)).toBe('unsubscribed');
      expect((await ledger()).map((r) => r.action)).toEqual(['optOut']);
      const messages = (await ts.acme.get(`/leads/${second}/messages`)).body.messages as { direction: string }[];
      expect(messages.filter((m) => m.direction === 'inbound')).toHaveLength(1);
    });

    it('a gather callback delivered three times stores one message', async () => {
      const ts = ctx();
      const phone = uniquePhone();
      const id = await createLead(ts.acme, { phone });
      const params = {
        AccountSid: SID,
        CallSid: sid('CA'),
        CallStatus: 'in-progress',
        Direction: 'outbound-api',
        From: OURS,
        To: phone,
        SpeechResult: 'Tuesday at five works.',
      };
      for (let i = 0; i < 3; i++) {
        const res = await signedWebhook(ts, PUBLIC, TOKEN, '/v1/providers/twilio/voice/gather', params);
        expect(res.status).toBe(200);
        expect(res.body).toContain('<Hangup/>');
      }
      const messages = (await ts.acme.get(`/leads/${id}/messages`)).body.messages as {
        channel: string;
        content: { text: string };
      }[];
      expect(messages.map((m) => [m.channel, m.content.text])).toEqual([['voice', 'Tuesday at five works.']]);
      // A gather of another call is its own delivery.
      expect(
        (
          await signedWebhook(ts, PUBLIC, TOKEN, '/v1/providers/twilio/voice/gather', {
            ...params,
            CallSid: sid('CA'),
            SpeechResult: 'Or Wednesday.',
          })
        ).status,
      ).toBe(200);
      expect((await ts.acme.get(`/leads/${id}/messages`)).body.messages).toHaveLength(2);
    });
  },
  ENV,
);
