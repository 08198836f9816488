import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { createLead, describeEachDialect, uniquePhone } from '../support/harness.js';
import { waitForStatus } from '../support/messages.js';
import { startSmtpSink } from '../support/smtp-sink.js';
import { eventually } from '../support/webhooks.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

const SID = 'ACdoubt';
const TOKEN = 'doubt-secret';

const fake = await startFakeTwilio(SID, TOKEN);
const sink = await startSmtpSink();
afterAll(async () => {
  await fake.close();
  await sink.close();
});

const ENV = {
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_API_BASE_URL: fake.url,
  PARLEY_PUBLIC_URL: 'https://parley.example.com',
  PARLEY_WORKER_POLL_MS: '20',
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
  // A Twilio call may take half the lease: 500 ms here (the other timeouts kept short so the lease is this one).
  PARLEY_LEASE_MS: '1000',
  PARLEY_AI_TIMEOUT_MS: '500',
  PARLEY_WEBHOOK_TIMEOUT_MS: '500',
};

/**
 * The provider's answer lost without a crash (Twilio slower than the call's
 * timeout), and Twilio's refusals: a send is never repeated blind, and a
 * refusal is never retried.
 */
describeEachDialect(
  'sends whose outcome is unknown, and refusals',
  (ctx) => {
    startEachTestInDaytime(ctx);
    const from = uniquePhone();

    beforeAll(async () => {
      const res = await ctx().acme.patch('/settings', {
        sendingNumber: from,
        contactHours: { start: '00:00', end: '00:00' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });

    afterEach(() => fake.slowly(0));

    const send = async (text: string) => {
      const leadId = await createLead(ctx().acme);
      const res = await ctx().acme.post(`/leads/${leadId}/sendMessage`, { message: text, channel: 'sms' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { leadId, id: res.body.id as string };
    };
    const posted = (text: string) => fake.requests.filter((r) => r.resource === 'Messages' && r.params.Body === text);

    it('a refusal (HTTP 400) fails the message at once: Twilio is asked once, never again', async () => {
      const text = `refused ${ctx().dialect} ${Math.random()}`;
      fake.failNext((r) => r.params.Body === text, 400, 5);
      const { leadId, id } = await send(text);
      const m = await waitForStatus(ctx().acme, leadId, id, (s) => s === 'failed');
      expect(m.statusReason).toMatch(/^refused by the provider: Twilio answered HTTP 400/);
      expect(posted(text).map((r) => r.status)).toEqual([400]);
    });

    it('an answer lost after Twilio took the SMS: found in its list and adopted, not sent again', async () => {
      const text = `taken ${ctx().dialect} ${Math.random()}`;
      fake.slowly(2_000, (p) => {
        if (p.Body === text) fake.slowly(0);
        return 'on_arrival';
      });
      const { leadId, id } = await send(text);
      const m = await waitForStatus(ctx().acme, leadId, id, (s) => s === 'sent');
      expect(fake.accepted('Messages', (p) => p.Body === text)).toHaveLength(1);
      expect(m.statusReason).toMatch(/found at twilio-sms/);
      const lead = (await ctx().acme.get(`/leads/${leadId}`)).body;
      expect(fake.lists.some((l) => l.params.To === lead.phone && l.params.From === from)).toBe(true);
    });

    it('an answer lost before Twilio took the SMS: not in its list, so sent once more, once', async () => {
      const text = `missed ${ctx().dialect} ${Math.random()}`;
      fake.slowly(2_000, (p) => {
        if (p.Body === text) fake.slowly(0);
        return 'after_delay';
      });
      const { leadId, id } = await send(text);
      const m = await waitForStatus(ctx().acme, leadId, id, (s) => s === 'sent');
      expect(m.statusReason).toBeNull();
      expect(fake.accepted('Messages', (p) => p.Body === text)).toHaveLength(1);
    });
  },
  ENV,
);

/**
 * SMTP cannot be asked what a server took: an email whose answer was lost is
 * left in doubt for an operator, never sent again blind, and every copy
 * carries the same Message-ID, made from the message's id.
 */
describeEachDialect(
  'an email whose answer is lost',
  (ctx) => {
    startEachTestInDaytime(ctx);
    afterEach(() => sink.answerAfter(0));

    it('waits in doubt for an operator, who resolves it; a resend carries the same Message-ID', async () => {
      const { acme } = ctx();
      const address = `doubt-${ctx().dialect}-${Math.random().toString(36).slice(2)}@example.test`;
      const leadId = await createLead(acme, { email: address });
      // Slower than the send's deadline (half the lease): the server has the mail, Parley never hears so.
      sink.answerAfter(6_000);
      const res = await acme.post(`/leads/${leadId}/sendMessage`, {
        message: 'Your quote is ready.',
        channel: 'email',
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const id = res.body.id as string;
      const view = await eventually(
        'the email left for an operator',
        async () => {
          const m = (
            (await acme.get(`/leads/${leadId}/messages`)).body.messages as {
              id: string;
              status: string;
              statusCode: string | null;
              statusReason: string | null;
            }[]
          ).find((x) => x.id === id)!;
          return m.statusCode === 'NEEDS_OPERATOR' && m;
        },
        20_000,
      );
      expect(view.status).toBe('in_doubt');
      expect(view.statusReason).toMatch(/smtp cannot be asked/);
      const copies = () => sink.received.filter((m) => m.rcptTo.includes(address));
      expect(copies()).toHaveLength(1);
      const messageId = copies()[0]!.headers.get('message-id');
      expect(messageId).toMatch(new RegExp(`^<${id}@`));

      sink.answerAfter(0);
      const resent = await acme.post(`/leads/${leadId}/messages/${id}/resolve`, { outcome: 'resend' });
      expect(resent.status, JSON.stringify(resent.body)).toBe(200);
      await waitForStatus(acme, leadId, id, (s) => s === 'sent');
      expect(copies().map((m) => m.headers.get('message-id'))).toEqual([messageId, messageId]);
    });
  },
  {
    SMTP_URL: sink.url,
    PARLEY_EMAIL_FROM: 'Acme Sales <sales@acme.test>',
    PARLEY_PUBLIC_URL: 'http://127.0.0.1',
    PARLEY_WORKER_POLL_MS: '20',
    PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
    // The send's deadline is half the lease: 2 s, ample to hand the mail over on a busy machine.
    PARLEY_LEASE_MS: '4000',
    PARLEY_AI_TIMEOUT_MS: '500',
    PARLEY_WEBHOOK_TIMEOUT_MS: '500',
  },
);
