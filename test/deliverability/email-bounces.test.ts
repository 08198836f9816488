import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { until } from '../support/assert.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { outboxFor } from '../support/events.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';
import { startSmtpSink } from '../support/smtp-sink.js';

const sink = await startSmtpSink();
afterAll(() => sink.close());

const ENV = {
  SMTP_URL: sink.url,
  PARLEY_EMAIL_FROM: 'Acme <sales@acme.test>',
  PARLEY_PUBLIC_URL: 'http://127.0.0.1',
  PARLEY_WORKER_POLL_MS: '20',
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
};
const ALWAYS_OPEN = { timeZone: 'UTC', contactHours: { start: '00:00', end: '00:00' } };
const uniqueEmail = () => `bounce-${process.pid}-${randomBytes(4).toString('hex')}@example.test`;

interface MessageView {
  id: string;
  status: string;
  statusCode: string | null;
  statusReason: string | null;
}

async function sendEmail(client: Client, leadId: string): Promise<MessageView> {
  const res = await client.post(`/leads/${leadId}/sendMessage`, {
    message: `by email ${Math.random()}`,
    channel: 'email',
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const id = res.body.id as string;
  return (await until(
    async () =>
      ((await client.get(`/leads/${leadId}/messages`)).body.messages as MessageView[]).find((m) => m.id === id),
    (m) => !!m && ['sent', 'failed', 'blocked'].includes(m.status),
  ))!;
}

const errorOf = (ts: TestServer, id: string) =>
  ts.server.store.db
    .selectFrom('messages')
    .select(['error_code', 'error_class'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
const delivered = (to: string) => sink.received.filter((m) => m.rcptTo.includes(to));

describeEachDialect(
  'email: hard and soft bounces',
  (ctx) => {
    startEachTestInDaytime(ctx);
    let ready = false;
    const client = async () => {
      const ts = ctx();
      if (!ready) expect((await ts.acme.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
      ready = true;
      return ts.acme;
    };

    describe('at send time (SMTP reply codes)', () => {
      it('550 is a hard bounce: failed at once, never retried, the address unreachable until the email changes', async () => {
        const ts = ctx();
        const c = await client();
        const email = uniqueEmail();
        const leadId = await createLead(c, { email });
        sink.refuseRecipient(email, 550, 1);
        const m = await sendEmail(c, leadId);
        expect(m.status).toBe('failed');
        expect(await errorOf(ts, m.id)).toEqual({ error_code: 'smtp:550', error_class: 'invalid' });
        expect((await outboxFor(ts, leadId, 'message.failed'))[0]!.data).toMatchObject({
          messageId: m.id,
          channel: 'email',
          provider: 'smtp',
          errorCode: '550',
          errorClass: 'invalid',
        });

        const next = await sendEmail(c, leadId);
        expect(next).toMatchObject({ status: 'blocked', statusCode: 'UNREACHABLE' });
        // Refused once only: a retry would have been taken. None was made.
        expect(delivered(email)).toHaveLength(0);

        const other = uniqueEmail();
        expect((await c.patch(`/leads/${leadId}`, { email: other })).status).toBe(200);
        expect((await sendEmail(c, leadId)).status).toBe('sent');
        expect(delivered(other)).toHaveLength(1);
      });

      it('450 is a soft bounce: retried, then delivered; nothing marked', async () => {
        const ts = ctx();
        const c = await client();
        const email = uniqueEmail();
        const leadId = await createLead(c, { email });
        sink.refuseRecipient(email, 450, 1);
        const m = await sendEmail(c, leadId);
        expect(m.status).toBe('sent');
        expect(delivered(email)).toHaveLength(1);
        expect(await errorOf(ts, m.id)).toEqual({ error_code: null, error_class: null });
        const lead = await ts.server.store.db
          .selectFrom('leads')
          .select(['email_unreachable_digest', 'email_status'])
          .where('id', '=', leadId)
          .executeTakeFirstOrThrow();
        expect(lead).toEqual({ email_unreachable_digest: null, email_status: 'subscribed' });
      });
    });

    describe('reported later (POST /v1/inbound/emailEvents with a DSN status)', () => {
      it('a 4.x.x bounce is soft: nothing changes; a 5.x.x one opts out and marks the address unreachable', async () => {
        const ts = ctx();
        const c = await client();
        const email = uniqueEmail();
        const leadId = await createLead(c, { email });

        const soft = await c.post('/inbound/emailEvents', { event: 'bounce', email, status: '4.2.2' });
        expect(soft.status).toBe(200);
        expect(soft.body).toMatchObject({ leadId, action: 'soft_bounce' });
        expect((await c.get(`/leads/${leadId}`)).body.subscriptions.email).toBe('subscribed');
        expect((await sendEmail(c, leadId)).status).toBe('sent');

        const hard = await c.post('/inbound/emailEvents', { event: 'bounce', email, status: '5.1.1' });
        expect(hard.body).toMatchObject({ leadId, action: 'opted_out' });
        expect((await c.get(`/leads/${leadId}`)).body.subscriptions.email).toBe('unsubscribed');
        const lead = await ts.server.store.db
          .selectFrom('leads')
          .select(['email_unreachable_code'])
          .where('id', '=', leadId)
          .executeTakeFirstOrThrow();
        expect(lead.email_unreachable_code).toBe('smtp:5.1.1');
      });

      it('refuses a status that is neither a DSN status nor an SMTP code', async () => {
        const c = await client();
        expect(
          (await c.post('/inbound/emailEvents', { event: 'bounce', email: uniqueEmail(), status: 'soft' })).status,
        ).toBe(400);
      });
    });
  },
  ENV,
);
