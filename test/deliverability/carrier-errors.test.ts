import { afterAll, describe, expect, it } from 'vitest';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { outboxFor } from '../support/events.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { createLead, describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { signedWebhook } from '../support/twilio-webhooks.js';
import { freshOrg } from '../campaigns/helpers.js';
import { makeUser } from '../console/support.js';
import { startSmtpSink } from '../support/smtp-sink.js';
import { statusAfterStep } from '../support/messages.js';

const SID = 'ACdeliverability';
const TOKEN = 'deliverability-secret';
const PUBLIC = 'https://parley.example.com';
const fake = await startFakeTwilio(SID, TOKEN);
const smtp = await startSmtpSink();
afterAll(async () => {
  await fake.close();
  await smtp.close();
});

const ENV = {
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_API_BASE_URL: fake.url,
  PARLEY_PUBLIC_URL: PUBLIC,
  PARLEY_WORKER_POLL_MS: '20',
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
  SMTP_URL: smtp.url,
};
const ALWAYS_OPEN = { timeZone: 'UTC', contactHours: { start: '00:00', end: '00:00' } };

let numbers = 0;
/** A sending number of its own per organization (the 628 area code keeps them apart from the leads' 415). */
const sendingNumber = () => `+1628444${String(1000 + ((process.pid + numbers++) % 9000)).padStart(4, '0')}`;

interface MessageView {
  id: string;
  status: string;
  statusCode: string | null;
  statusReason: string | null;
}

async function messageOf(client: Client, leadId: string, id: string): Promise<MessageView | undefined> {
  return ((await client.get(`/leads/${leadId}/messages`)).body.messages as MessageView[]).find((m) => m.id === id);
}

async function send(client: Client, leadId: string, text = `hello ${Math.random()}`): Promise<string> {
  const res = await client.post(`/leads/${leadId}/sendMessage`, { message: text, channel: 'sms' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

const final = (s: string) => ['sent', 'failed', 'blocked', 'delivered', 'undelivered'].includes(s);
/**
 * The message after the worker's step: in a final status by then, or this fails with where it stayed. With
 * `retries`, a send the provider refused for now is retried: the clock moves a second on (past the 50 ms
 * retry schedule of twilioEnv) and the worker steps again, at most four times.
 */
async function settled(
  ts: Pick<TestServer, 'runDue' | 'clock'>,
  client: Client,
  leadId: string,
  id: string,
  { retries = false } = {},
): Promise<MessageView> {
  return statusAfterStep(ts, client, leadId, id, final, { retries: retries ? 4 : 0 });
}

async function row(ts: TestServer, messageId: string) {
  return ts.server.store.db.selectFrom('messages').selectAll().where('id', '=', messageId).executeTakeFirstOrThrow();
}

/** A status callback for a message we sent, as Twilio posts it. */
function report(ts: TestServer, sid: string, from: string, to: string, status: string, errorCode?: string) {
  return signedWebhook(ts, PUBLIC, TOKEN, '/v1/providers/twilio/status', {
    AccountSid: SID,
    MessageSid: sid,
    SmsSid: sid,
    MessageStatus: status,
    SmsStatus: status,
    From: from,
    To: to,
    ApiVersion: '2010-04-01',
    ...(errorCode ? { ErrorCode: errorCode } : {}),
  });
}

/** An organization of its own with a sending number, open around the clock (the legal floor still holds: tests run at DAYTIME). */
async function org(ts: TestServer, settings: Record<string, unknown> = {}) {
  const o = await freshOrg(ts, 'deliver');
  const number = sendingNumber();
  const res = await o.client.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: number, ...settings });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { ...o, number };
}

/** The organization's admins and one agent, console users who get (or not) the sending number alerts by email. */
async function staff(ts: TestServer, organizationId: string) {
  const { name } = await ts.server.store.db
    .selectFrom('organizations')
    .select('name')
    .where('id', '=', organizationId)
    .executeTakeFirstOrThrow();
  return {
    admins: [(await makeUser(ts, 'admin', name)).email, (await makeUser(ts, 'admin', name)).email],
    agent: (await makeUser(ts, 'agent', name)).email,
  };
}

const mailsTo = (email: string) => smtp.received.filter((m) => m.rcptTo.includes(email));

/** The sendingNumber.unusable events of one number, oldest first. */
async function unusableEvents(ts: TestServer, number: string) {
  const rows = await ts.server.store.db
    .selectFrom('events')
    .select('payload')
    .where('type', '=', 'sendingNumber.unusable')
    .orderBy('id')
    .execute();
  return rows.map((r) => JSON.parse(r.payload) as Record<string, unknown>).filter((e) => e.number === number);
}

async function newLead(client: Client, fields: Record<string, unknown> = {}) {
  const phone = uniquePhone();
  return { id: await createLead(client, { phone, ...fields }), phone };
}

/** Sends one SMS through the fake Twilio and answers its message id and Twilio's sid. */
async function sentSms(ts: TestServer, client: Client, leadId: string) {
  const id = await send(client, leadId);
  expect((await settled(ts, client, leadId, id)).status).toBe('sent');
  const sid = (await row(ts, id)).provider_message_id!;
  expect(sid).toMatch(/^SM/);
  return { id, sid };
}

/** The campaign.paused events of one campaign, oldest first. */
async function pausedEvents(ts: TestServer, campaignId: string) {
  const rows = await ts.server.store.db
    .selectFrom('events')
    .select('payload')
    .where('type', '=', 'campaign.paused')
    .orderBy('id')
    .execute();
  return rows.map((r) => JSON.parse(r.payload) as Record<string, unknown>).filter((e) => e.campaignId === campaignId);
}

const toPhone = (phone: string) => (p: Record<string, string>) => p.To === phone;

describeEachDialect(
  'carrier errors acted on by class',
  (ctx) => {
    startEachTestInDaytime(ctx);

    describe('opted_out (21610)', () => {
      it('a status callback records an sms opt-out with source carrier, sends no confirmation, and later sends are blocked', async () => {
        const ts = ctx();
        const { client, number } = await org(ts);
        const { id, phone } = await newLead(client);
        const { id: messageId, sid } = await sentSms(ts, client, id);

        expect((await report(ts, sid, number, phone, 'undelivered', '21610')).status).toBe(200);
        expect((await client.get(`/leads/${id}`)).body.subscriptions.sms).toBe('unsubscribed');
        const lead = await ts.server.store.db
          .selectFrom('leads')
          .select(['sms_status', 'sms_opt_out_source'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        expect(lead).toEqual({ sms_status: 'unsubscribed', sms_opt_out_source: 'carrier' });
        expect(await row(ts, messageId)).toMatchObject({
          status: 'undelivered',
          error_code: 'twilio:21610',
          error_class: 'opted_out',
        });
        const optOuts = await outboxFor(ts, id, 'optOut');
        expect(optOuts).toHaveLength(1);
        expect(optOuts[0]!.data).toMatchObject({
          channel: 'sms',
          source: 'carrier',
          isTwilioOptOut: true,
          optOutMessage: null,
        });
        const failed = await outboxFor(ts, id, 'message.failed');
        expect(failed.map((e) => e.data)).toEqual([
          expect.objectContaining({
            messageId,
            providerMessageId: sid,
            status: 'undelivered',
            provider: 'twilio',
            errorCode: '21610',
            errorClass: 'opted_out',
          }),
        ]);
        // As if the lead had sent STOP, but nobody to confirm to: no compliance message was recorded.
        const confirmations = await ts.server.store.db
          .selectFrom('messages')
          .select('id')
          .where('lead_id', '=', id)
          .where('purpose', '!=', 'conversation')
          .execute();
        expect(confirmations).toHaveLength(0);
        // The organization cannot lift it; only the lead's START can.
        expect((await client.post(`/leads/${id}/resubscribe`, { channels: ['sms'] })).status).toBe(409);

        const next = await send(client, id);
        expect(await settled(ctx(), client, id, next)).toMatchObject({ status: 'blocked', statusCode: 'OPTED_OUT' });

        // The same callback again (Twilio retries): nothing new.
        expect((await report(ts, sid, number, phone, 'undelivered', '21610')).status).toBe(200);
        expect(await outboxFor(ts, id, 'message.failed')).toHaveLength(1);
        expect(await outboxFor(ts, id, 'optOut')).toHaveLength(1);
      });

      it('a send refused with 21610 is not retried and records the opt-out', async () => {
        const ts = ctx();
        const { client } = await org(ts);
        const { id, phone } = await newLead(client);
        fake.failNext((r) => r.params.To === phone, 400, 1, 'POST', 21610);
        const messageId = await send(client, id);
        const m = await settled(ctx(), client, id, messageId);
        expect(m.status).toBe('failed');
        expect(m.statusReason).toMatch(/^refused by the provider: Twilio answered HTTP 400: 21610/);
        expect(fake.requests.filter((r) => r.params.To === phone)).toHaveLength(1);
        expect(await row(ts, messageId)).toMatchObject({ error_code: 'twilio:21610', error_class: 'opted_out' });
        expect((await client.get(`/leads/${id}`)).body.subscriptions.sms).toBe('unsubscribed');
        expect((await outboxFor(ts, id, 'optOut'))[0]!.data).toMatchObject({ source: 'carrier' });
        expect((await outboxFor(ts, id, 'message.failed'))[0]!.data).toMatchObject({
          messageId,
          status: 'failed',
          errorCode: '21610',
          errorClass: 'opted_out',
          providerMessageId: null,
        });
      });
    });

    describe('invalid and unreachable', () => {
      const classOf: Record<string, string> = {
        '21211': 'invalid',
        '21614': 'invalid',
        '30005': 'invalid',
        '30003': 'unreachable',
        '30006': 'unreachable',
      };
      it.each(Object.keys(classOf))(
        'a callback with %s blocks the number for sms (UNREACHABLE) until the phone changes',
        async (code) => {
          const ts = ctx();
          const { client, number } = await org(ts);
          const { id, phone } = await newLead(client);
          const { id: messageId, sid } = await sentSms(ts, client, id);
          expect((await report(ts, sid, number, phone, 'undelivered', code)).status).toBe(200);
          const klass = classOf[code];
          expect(await row(ts, messageId)).toMatchObject({
            status: 'undelivered',
            status_reason: `Twilio error ${code}`,
            error_code: `twilio:${code}`,
            error_class: klass,
          });
          expect((await outboxFor(ts, id, 'message.failed'))[0]!.data).toMatchObject({
            errorCode: code,
            errorClass: klass,
          });

          const blocked = await send(client, id);
          const b = await settled(ctx(), client, id, blocked);
          expect(b).toMatchObject({ status: 'blocked', statusCode: 'UNREACHABLE' });
          expect(b.statusReason).toContain(`twilio:${code}`);
          expect(await messageOf(client, id, messageId)).toMatchObject({
            status: 'undelivered',
            errorCode: `twilio:${code}`,
            errorClass: klass,
          });
          expect(Object.keys((await messageOf(client, id, blocked))!)).not.toContain('errorCode');
          expect(fake.accepted('Messages', toPhone(phone))).toHaveLength(1);
          // Still subscribed: unreachable is not an opt-out.
          expect((await client.get(`/leads/${id}`)).body.subscriptions.sms).toBe('subscribed');

          const newPhone = uniquePhone();
          expect((await client.patch(`/leads/${id}`, { phone: newPhone })).status).toBe(200);
          const after = await send(client, id);
          expect((await settled(ctx(), client, id, after)).status).toBe('sent');
          expect(fake.accepted('Messages', toPhone(newPhone))).toHaveLength(1);
        },
      );

      it('a send refused with 21211 fails at once, never retried, and marks the number unreachable', async () => {
        const ts = ctx();
        const { client } = await org(ts);
        const { id, phone } = await newLead(client);
        fake.failNext((r) => r.params.To === phone, 400, 1, 'POST', 21211);
        const messageId = await send(client, id);
        expect((await settled(ctx(), client, id, messageId)).status).toBe('failed');
        expect(fake.requests.filter((r) => r.params.To === phone)).toHaveLength(1);
        expect(await row(ts, messageId)).toMatchObject({ error_code: 'twilio:21211', error_class: 'invalid' });
        const next = await send(client, id);
        expect(await settled(ctx(), client, id, next)).toMatchObject({ status: 'blocked', statusCode: 'UNREACHABLE' });
        expect(fake.requests.filter((r) => r.params.To === phone)).toHaveLength(1);
      });
    });

    describe('transient', () => {
      it.each([
        [429, 20429],
        [400, 21611],
        [503, 20503],
      ])('a send answered HTTP %i with %i is retried with backoff and then sent', async (status, code) => {
        const ts = ctx();
        const { client } = await org(ts);
        const { id, phone } = await newLead(client);
        fake.failNext((r) => r.params.To === phone, status, 1, 'POST', code);
        const messageId = await send(client, id);
        expect((await settled(ts, client, id, messageId, { retries: true })).status).toBe('sent');
        expect(fake.requests.filter((r) => r.params.To === phone).map((r) => r.status)).toEqual([status, 201]);
        expect(await outboxFor(ts, id, 'message.failed')).toHaveLength(0);
      });

      it('a transient error on every attempt ends failed with its class, and message.failed', async () => {
        const ts = ctx();
        const { client } = await org(ts);
        const { id, phone } = await newLead(client);
        fake.failNext((r) => r.params.To === phone, 429, 3, 'POST', 20429);
        const messageId = await send(client, id);
        expect((await settled(ts, client, id, messageId, { retries: true })).status).toBe('failed');
        expect(fake.requests.filter((r) => r.params.To === phone).map((r) => r.status)).toEqual([429, 429, 429]);
        expect(await row(ts, messageId)).toMatchObject({ error_code: 'twilio:20429', error_class: 'transient' });
        expect((await outboxFor(ts, id, 'message.failed'))[0]!.data).toMatchObject({
          errorCode: '20429',
          errorClass: 'transient',
        });
      });
      it.each(['30001', '30022'])(
        'a callback with %s is recorded with its class and not sent again; the lead stays reachable',
        async (code) => {
          const ts = ctx();
          const { client, number } = await org(ts);
          const { id, phone } = await newLead(client);
          const { id: messageId, sid } = await sentSms(ts, client, id);
          expect((await report(ts, sid, number, phone, 'undelivered', code)).status).toBe(200);
          expect(await row(ts, messageId)).toMatchObject({
            status: 'undelivered',
            error_code: `twilio:${code}`,
            error_class: 'transient',
          });
          expect((await outboxFor(ts, id, 'message.failed')).map((e) => e.data)).toEqual([
            expect.objectContaining({ messageId, status: 'undelivered', errorCode: code, errorClass: 'transient' }),
          ]);
          // Twilio already tried its own delivery: the worker's next step sends no second copy (docs/deliverability.md).
          await ts.runDue();
          ts.clock.advance(60_000);
          await ts.runDue();
          expect(fake.requests.filter((r) => r.params.To === phone)).toHaveLength(1);
          expect(await messageOf(client, id, messageId)).toMatchObject({
            status: 'undelivered',
            errorClass: 'transient',
          });
          // Not a mark on the address: the next send goes out.
          expect((await client.get(`/leads/${id}`)).body.subscriptions.sms).toBe('subscribed');
          const next = await send(client, id);
          expect((await settled(ts, client, id, next)).status).toBe('sent');
          expect(fake.accepted('Messages', toPhone(phone))).toHaveLength(2);
        },
      );
    });

    describe('message.delivered', () => {
      it('a delivered callback writes message.delivered once, with the message and provider ids', async () => {
        const ts = ctx();
        const { client, number } = await org(ts);
        const { id, phone } = await newLead(client);
        const { id: messageId, sid } = await sentSms(ts, client, id);
        expect((await report(ts, sid, number, phone, 'sent')).status).toBe(200);
        expect((await report(ts, sid, number, phone, 'delivered')).status).toBe(200);
        expect((await report(ts, sid, number, phone, 'delivered')).status).toBe(200);
        const events = await outboxFor(ts, id, 'message.delivered');
        expect(events.map((e) => e.data)).toEqual([
          {
            leadId: id,
            externalLeadId: null,
            phone,
            email: null,
            channel: 'sms',
            messageId,
            providerMessageId: sid,
            status: 'delivered',
            campaignId: null,
            sendingNumberId: null,
          },
        ]);
      });
    });

    describe('unregistered_sender (30032, 30034)', () => {
      it.each(['30034', '30032'])(
        '%s retires the pool number: the pool stops assigning it, its leads move, an event says so and the admins get an email',
        async (code) => {
          const ts = ctx();
          const { client, org: organizationId } = await org(ts);
          const people = await staff(ts, organizationId);
          const add = async () => {
            const res = await client.post('/sendingNumbers', {
              number: sendingNumber(),
              kind: 'longCode',
              ratePerSecond: 100,
            });
            expect(res.status, JSON.stringify(res.body)).toBe(201);
            return res.body as { id: string; number: string };
          };
          const first = await add();
          const { id, phone } = await newLead(client);
          const { id: messageId, sid } = await sentSms(ts, client, id);
          expect(fake.accepted('Messages', toPhone(phone))[0]!.params.From).toBe(first.number);
          const second = await add();

          expect((await report(ts, sid, first.number, phone, 'failed', code)).status).toBe(200);
          expect(await row(ts, messageId)).toMatchObject({ status: 'failed', error_class: 'unregistered_sender' });
          const retired = (await client.get(`/sendingNumbers/${first.id}`)).body;
          expect(retired).toMatchObject({ unusableCode: `twilio:${code}` });
          expect(retired.unusableAt).toEqual(expect.any(String));
          const alerts = await ts.server.store.db
            .selectFrom('events')
            .select('payload')
            .where('type', '=', 'sendingNumber.unusable')
            .execute();
          const mine = alerts
            .map((a) => JSON.parse(a.payload) as Record<string, unknown>)
            .filter((a) => a.sendingNumberId === first.id);
          expect(mine).toEqual([
            expect.objectContaining({
              number: first.number,
              errorCode: code,
              errorClass: 'unregistered_sender',
              provider: 'twilio',
            }),
          ]);
          // Each admin gets one email, through real SMTP, once the worker's step ran; an agent gets none.
          await ts.runDue();
          for (const admin of people.admins) {
            const mails = mailsTo(admin);
            expect(mails).toHaveLength(1);
            expect(mails[0]!.headers.get('subject')).toBe(
              `Sending number ${first.number} refused by the carrier (twilio:${code})`,
            );
            const title =
              code === '30034'
                ? 'Message from an Unregistered Number (US A2P 10DLC)'
                : 'Toll-Free Number Has Not Been Verified';
            expect(mails[0]!.text.split('\n')[0]).toBe(
              `The carrier refused ${first.number} as a sender (twilio:${code}: ${title}).`,
            );
            expect(mails[0]!.text).toContain(`/v1/sendingNumbers/${first.id}`);
          }
          expect(mailsTo(people.agent)).toHaveLength(0);

          // The lead stuck to the retired number moves to the usable one; a new lead never gets the retired one.
          const next = await send(client, id);
          expect((await settled(ctx(), client, id, next)).status).toBe('sent');
          expect(fake.accepted('Messages', toPhone(phone)).map((r) => r.params.From)).toEqual([
            first.number,
            second.number,
          ]);
          const other = await newLead(client);
          const o = await send(client, other.id);
          expect((await settled(ctx(), client, other.id, o)).status).toBe('sent');
          expect(fake.accepted('Messages', toPhone(other.phone)).map((r) => r.params.From)).toEqual([second.number]);

          // A second refusal for the same number: no second alert.
          expect((await report(ts, sid, first.number, phone, 'undelivered', code)).status).toBe(200);
          const again = (
            await ts.server.store.db
              .selectFrom('events')
              .select('payload')
              .where('type', '=', 'sendingNumber.unusable')
              .execute()
          ).filter((a) => (JSON.parse(a.payload) as Record<string, unknown>).sendingNumberId === first.id);
          expect(again).toHaveLength(1);
          await ts.runDue();
          for (const admin of people.admins) expect(mailsTo(admin)).toHaveLength(1);
        },
      );
    });

    describe('unregistered_sender from the settings number', () => {
      it('a callback with 30034 marks the settings number once: one event, one email per admin, until the setting changes', async () => {
        const ts = ctx();
        const { client, number, org: organizationId } = await org(ts);
        const people = await staff(ts, organizationId);
        const a = await newLead(client);
        const b = await newLead(client);
        const sa = await sentSms(ts, client, a.id);
        const sb = await sentSms(ts, client, b.id);

        expect((await report(ts, sa.sid, number, a.phone, 'failed', '30034')).status).toBe(200);
        const marked = await ts.server.store.db
          .selectFrom('organizations')
          .select(['sending_number_unusable_code'])
          .where('id', '=', organizationId)
          .executeTakeFirstOrThrow();
        expect(marked.sending_number_unusable_code).toBe('twilio:30034');
        expect(await unusableEvents(ts, number)).toEqual([
          expect.objectContaining({
            sendingNumberId: null,
            number,
            errorCode: '30034',
            errorClass: 'unregistered_sender',
          }),
        ]);
        await ts.runDue();
        for (const admin of people.admins) {
          expect(mailsTo(admin).map((m) => m.headers.get('subject'))).toEqual([
            `Sending number ${number} refused by the carrier (twilio:30034)`,
          ]);
          expect(mailsTo(admin)[0]!.text).toContain('It is the number in your settings');
        }
        expect(mailsTo(people.agent)).toHaveLength(0);

        // Another send from it refused (a report): no second event, no second email.
        expect((await report(ts, sb.sid, number, b.phone, 'undelivered', '30034')).status).toBe(200);
        expect(await row(ts, sb.id)).toMatchObject({ error_class: 'unregistered_sender' });
        await ts.runDue();
        expect(await unusableEvents(ts, number)).toHaveLength(1);
        for (const admin of people.admins) expect(mailsTo(admin)).toHaveLength(1);

        // A new settings number is not the refused one: its own refusal is alerted.
        const replacement = sendingNumber();
        expect((await client.patch('/settings', { sendingNumber: replacement })).status).toBe(200);
        const c = await newLead(client);
        fake.failNext((r) => r.params.To === c.phone, 400, 1, 'POST', 30034);
        const m = await send(client, c.id);
        expect((await settled(ts, client, c.id, m)).status).toBe('failed');
        expect(fake.requests.filter((r) => r.params.To === c.phone).map((r) => r.params.From)).toEqual([replacement]);
        expect(await unusableEvents(ts, replacement)).toEqual([
          expect.objectContaining({ sendingNumberId: null, number: replacement, errorCode: '30034' }),
        ]);
        await ts.runDue();
        for (const admin of people.admins)
          expect(mailsTo(admin).map((x) => x.headers.get('subject'))).toEqual([
            `Sending number ${number} refused by the carrier (twilio:30034)`,
            `Sending number ${replacement} refused by the carrier (twilio:30034)`,
          ]);
      });
    });

    describe('a settings number that is also a pool number', () => {
      it('refused again from the settings after its pool row was marked: no second alert, and its sends stop', async () => {
        const ts = ctx();
        const { client, number, org: organizationId } = await org(ts);
        const people = await staff(ts, organizationId);
        const pool = await client.post('/sendingNumbers', { number, kind: 'longCode', ratePerSecond: 100 });
        expect(pool.status, JSON.stringify(pool.body)).toBe(201);
        const a = await newLead(client);
        const first = await sentSms(ts, client, a.id);
        expect(await row(ts, first.id)).toMatchObject({ sending_number_id: pool.body.id });
        expect((await report(ts, first.sid, number, a.phone, 'failed', '30034')).status).toBe(200);
        expect(await unusableEvents(ts, number)).toEqual([
          expect.objectContaining({ sendingNumberId: pool.body.id, number }),
        ]);

        // The pool has no usable number left: the next send goes from the settings number, the same one, refused.
        const b = await newLead(client);
        fake.failNext((r) => r.params.To === b.phone, 400, 1, 'POST', 30034);
        const refused = await send(client, b.id);
        expect((await settled(ts, client, b.id, refused)).status).toBe('failed');
        expect(await row(ts, refused)).toMatchObject({ sending_number_id: null, from_number: number });
        expect(await unusableEvents(ts, number)).toHaveLength(1);
        await ts.runDue();
        for (const admin of people.admins) expect(mailsTo(admin)).toHaveLength(1);
        expect((await client.get('/settings')).body.sendingNumberUnusableCode).toBe('twilio:30034');

        const c = await newLead(client);
        const blocked = await send(client, c.id);
        expect(await settled(ts, client, c.id, blocked)).toMatchObject({
          status: 'failed',
          statusCode: 'SENDER_UNUSABLE',
        });
        expect(fake.requests.filter((r) => r.params.To === c.phone)).toEqual([]);
      });
    });

    describe('sends from a refused settings number', () => {
      it('fail at once without reaching Twilio, with SENDER_UNUSABLE, the code and message.failed; GET /settings shows the mark', async () => {
        const ts = ctx();
        const { client, number, org: organizationId } = await org(ts);
        const a = await newLead(client);
        const first = await sentSms(ts, client, a.id);
        const before = (await client.get('/settings')).body;
        expect(before).toMatchObject({ sendingNumberUnusableAt: null, sendingNumberUnusableCode: null });
        expect((await report(ts, first.sid, number, a.phone, 'failed', '30034')).status).toBe(200);
        const marked = (await client.get('/settings')).body;
        expect(marked).toMatchObject({ sendingNumber: number, sendingNumberUnusableCode: 'twilio:30034' });
        expect(marked.sendingNumberUnusableAt).toEqual(expect.any(String));

        const b = await newLead(client);
        const m = await send(client, b.id);
        const failed = await settled(ts, client, b.id, m);
        expect(failed).toMatchObject({
          status: 'failed',
          statusCode: 'SENDER_UNUSABLE',
          statusReason: `not sent: the carrier refused ${number} as a sender (twilio:30034); set another sending number in settings`,
        });
        expect(await row(ts, m)).toMatchObject({
          error_code: 'twilio:30034',
          error_class: 'unregistered_sender',
          attempt_at: null,
          from_number: null,
        });
        expect(fake.requests.filter((r) => r.params.To === b.phone)).toEqual([]);
        const events = await outboxFor(ts, b.id, 'message.failed');
        expect(events.filter((e) => e.data.messageId === m)).toEqual([
          expect.objectContaining({
            data: expect.objectContaining({
              status: 'failed',
              provider: 'twilio',
              errorCode: '30034',
              errorClass: 'unregistered_sender',
            }),
          }),
        ]);
        // Never retried: the send's job is done, and a later step sends nothing.
        ts.clock.advance(60_000);
        await ts.runDue();
        expect(fake.requests.filter((r) => r.params.To === b.phone)).toEqual([]);
        expect(await row(ts, m)).toMatchObject({ status: 'failed' });
        const jobs = await ts.server.store.db
          .selectFrom('jobs')
          .select('status')
          .where('organization_id', '=', organizationId)
          .where('name', '=', 'message.send')
          .where('status', '<>', 'done')
          .execute();
        expect(jobs).toEqual([]);

        // A new number clears the mark: sends go out from it.
        const replacement = sendingNumber();
        const changed = (await client.patch('/settings', { sendingNumber: replacement })).body;
        expect(changed).toMatchObject({ sendingNumberUnusableAt: null, sendingNumberUnusableCode: null });
        const next = await send(client, b.id);
        expect((await settled(ts, client, b.id, next)).status).toBe('sent');
        expect(fake.accepted('Messages', toPhone(b.phone)).map((r) => r.params.From)).toEqual([replacement]);
      });

      it('pause a running campaign at its first such send instead of failing its leads one by one', async () => {
        const ts = ctx();
        const { client, number } = await org(ts);
        expect(
          (await client.post('/customerProfiles', { name: 'promo', openingMessage: 'Hi {{firstName}}!' })).status,
        ).toBe(201);
        const loner = await newLead(client);
        const single = await sentSms(ts, client, loner.id);
        expect((await report(ts, single.sid, number, loner.phone, 'failed', '30034')).status).toBe(200);
        const tag = `u${Math.random().toString(36).slice(2, 8)}`;
        const leads: { id: string; phone: string }[] = [];
        for (let i = 0; i < 4; i += 1) leads.push(await newLead(client, { additionalInfo: { list: tag } }));
        const created = await client.post('/campaigns', {
          name: 'Refused number promo',
          // Two openings a day: the campaign is still running when the first of them fails.
          dailyCap: 2,
          customerProfile: 'promo',
          filter: { additionalInfo: { list: tag } },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const campaignId = created.body.id as string;
        await ts.runDue();
        await ts.runDue();
        const campaign = (await client.get(`/campaigns/${campaignId}`)).body;
        expect(campaign).toMatchObject({ status: 'paused', pauseCode: 'SENDER_UNUSABLE' });
        expect(campaign.pauseReason).toBe(
          `the carrier refused ${number} as a sender (twilio:30034); set another sending number in settings, then resume`,
        );
        expect(await pausedEvents(ts, campaignId)).toEqual([
          expect.objectContaining({ code: 'SENDER_UNUSABLE', sendingNumberId: null, number }),
        ]);
        const statuses = await ts.server.store.db
          .selectFrom('messages')
          .select(['status', 'status_code'])
          .where('campaign_id', '=', campaignId)
          .execute();
        // Nothing went out: today's two openings failed for the number, the other leads were never opened.
        for (const l of leads) expect(fake.requests.filter((r) => r.params.To === l.phone)).toEqual([]);
        expect(statuses).toEqual([
          { status: 'failed', status_code: 'SENDER_UNUSABLE' },
          { status: 'failed', status_code: 'SENDER_UNUSABLE' },
        ]);
      });
    });

    describe('unregistered_sender at send time', () => {
      it('a send refused with 30034 fails, retires the pool number it went from, and the next send uses another', async () => {
        const ts = ctx();
        const { client } = await org(ts);
        const first = await client.post('/sendingNumbers', {
          number: sendingNumber(),
          kind: 'longCode',
          ratePerSecond: 100,
        });
        expect(first.status).toBe(201);
        const { id, phone } = await newLead(client);
        fake.failNext((r) => r.params.To === phone, 400, 1, 'POST', 30034);
        const messageId = await send(client, id);
        expect((await settled(ctx(), client, id, messageId)).status).toBe('failed');
        expect(fake.requests.filter((r) => r.params.To === phone).map((r) => [r.status, r.params.From])).toEqual([
          [400, first.body.number],
        ]);
        expect((await client.get(`/sendingNumbers/${first.body.id}`)).body.unusableCode).toBe('twilio:30034');
        const second = await client.post('/sendingNumbers', {
          number: sendingNumber(),
          kind: 'longCode',
          ratePerSecond: 100,
        });
        const next = await send(client, id);
        expect((await settled(ctx(), client, id, next)).status).toBe('sent');
        expect(fake.accepted('Messages', toPhone(phone)).map((r) => r.params.From)).toEqual([second.body.number]);
      });
    });

    describe('filtered (30007)', () => {
      it('a campaign pauses itself when filtered sends reach the threshold, with its reason and campaign.paused', async () => {
        const ts = ctx();
        // 20 % of a window of 10: two filtered sends among the campaign's latest pause it.
        const { client, number } = await org(ts, { filteredPause: { percent: 20, window: 10 } });
        expect((await client.get('/settings')).body.filteredPause).toEqual({ percent: 20, window: 10 });
        expect(
          (await client.post('/customerProfiles', { name: 'promo', openingMessage: 'Hi {{firstName}}, spring offer!' }))
            .status,
        ).toBe(201);
        const tag = `f${Math.random().toString(36).slice(2, 8)}`;
        const leads: { id: string; phone: string }[] = [];
        for (let i = 0; i < 4; i += 1)
          leads.push(await newLead(client, { firstName: `L${i}`, additionalInfo: { list: tag } }));
        const created = await client.post('/campaigns', {
          name: 'Filtered promo',
          customerProfile: 'promo',
          dailyCap: 3,
          filter: { additionalInfo: { list: tag } },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const campaignId = created.body.id as string;
        const phones = leads.map((l) => l.phone);
        await ts.runDue();
        const sent = await ts.server.store.db
          .selectFrom('messages')
          .select(['id', 'lead_id', 'provider_message_id'])
          .where('campaign_id', '=', campaignId)
          .where('status', '=', 'sent')
          .execute();
        expect(sent).toHaveLength(3);
        const phoneOf = (leadId: string) => leads.find((l) => l.id === leadId)!.phone;
        expect(fake.accepted('Messages', (p) => phones.includes(p.To ?? ''))).toHaveLength(3);

        expect(
          (await report(ts, sent[0]!.provider_message_id!, number, phoneOf(sent[0]!.lead_id), 'undelivered', '30007'))
            .status,
        ).toBe(200);
        expect((await client.get(`/campaigns/${campaignId}`)).body).toMatchObject({
          status: 'running',
          pauseCode: null,
        });
        expect(await row(ts, sent[0]!.id)).toMatchObject({ error_class: 'filtered', error_code: 'twilio:30007' });

        expect(
          (await report(ts, sent[1]!.provider_message_id!, number, phoneOf(sent[1]!.lead_id), 'undelivered', '30007'))
            .status,
        ).toBe(200);
        const paused = (await client.get(`/campaigns/${campaignId}`)).body;
        expect(paused).toMatchObject({ status: 'paused', pauseCode: 'FILTERED' });
        expect(paused.pauseReason).toMatch(/carriers filtered 2 of the campaign's last 10 sends/);
        expect(await pausedEvents(ts, campaignId)).toEqual([
          expect.objectContaining({
            campaignId,
            code: 'FILTERED',
            filtered: 2,
            window: 10,
            percent: 20,
            sendingNumberId: null,
          }),
        ]);

        // A third filtered report: the campaign is paused already, no second event.
        expect(
          (await report(ts, sent[2]!.provider_message_id!, number, phoneOf(sent[2]!.lead_id), 'undelivered', '30007'))
            .status,
        ).toBe(200);
        expect(await row(ts, sent[2]!.id)).toMatchObject({ error_class: 'filtered' });
        expect(await pausedEvents(ts, campaignId)).toHaveLength(1);

        // Resumed by hand: the reason goes.
        const resumed = await client.post(`/campaigns/${campaignId}/resume`, {});
        expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
        expect(resumed.body).toMatchObject({ pauseCode: null, pauseReason: null });
      });

      it('with the default threshold (5 % of the last 200 sends), 9 filtered of 200 keep a campaign running, 10 pause it', async () => {
        const ts = ctx();
        const { client, number } = await org(ts);
        expect((await client.get('/settings')).body.filteredPause).toEqual({ percent: 5, window: 200 });
        expect(
          (await client.post('/customerProfiles', { name: 'bulk', openingMessage: 'Hi {{firstName}}!' })).status,
        ).toBe(201);
        const tag = `d${Math.random().toString(36).slice(2, 8)}`;
        const phones = new Map<string, string>();
        // 200 real sends: leads made over HTTP, the campaign's openings sent by the worker through the fake Twilio.
        for (let i = 0; i < 200; i += 1) {
          const lead = await newLead(client, { firstName: `B${i}`, additionalInfo: { list: tag } });
          phones.set(lead.id, lead.phone);
        }
        const created = await client.post('/campaigns', {
          name: 'Default threshold',
          customerProfile: 'bulk',
          dailyCap: 200,
          filter: { additionalInfo: { list: tag } },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const campaignId = created.body.id as string;
        await ts.runDue();
        const sent = await ts.server.store.db
          .selectFrom('messages')
          .select(['id', 'lead_id', 'provider_message_id'])
          .where('campaign_id', '=', campaignId)
          .where('status', '=', 'sent')
          .execute();
        expect(sent).toHaveLength(200);
        const filter = async (i: number) =>
          expect(
            (
              await report(
                ts,
                sent[i]!.provider_message_id!,
                number,
                phones.get(sent[i]!.lead_id)!,
                'undelivered',
                '30007',
              )
            ).status,
          ).toBe(200);
        for (let i = 0; i < 9; i += 1) await filter(i);
        expect((await client.get(`/campaigns/${campaignId}`)).body).toMatchObject({
          status: 'running',
          pauseCode: null,
        });
        expect(await pausedEvents(ts, campaignId)).toHaveLength(0);

        await filter(9);
        const paused = (await client.get(`/campaigns/${campaignId}`)).body;
        expect(paused).toMatchObject({ status: 'paused', pauseCode: 'FILTERED' });
        expect(paused.pauseReason).toMatch(/carriers filtered 10 of the campaign's last 200 sends \(threshold 5 %/);
        expect(await pausedEvents(ts, campaignId)).toEqual([
          expect.objectContaining({ campaignId, filtered: 10, window: 200, percent: 5 }),
        ]);
      });

      it('filtered sends from the settings number pause the campaigns sending from it (per-number threshold)', async () => {
        const ts = ctx();
        const { client, number } = await org(ts, { filteredPause: { percent: 20, window: 10 } });
        expect(
          (await client.post('/customerProfiles', { name: 'promo', openingMessage: 'Hi {{firstName}}!' })).status,
        ).toBe(201);
        // One filtered send outside any campaign, from the settings number (no pool).
        const loner = await newLead(client);
        const single = await sentSms(ts, client, loner.id);
        expect(await row(ts, single.id)).toMatchObject({ sending_number_id: null, from_number: number });
        const tag = `s${Math.random().toString(36).slice(2, 8)}`;
        const leads: { id: string; phone: string }[] = [];
        for (let i = 0; i < 3; i += 1) leads.push(await newLead(client, { additionalInfo: { list: tag } }));
        const created = await client.post('/campaigns', {
          name: 'Settings number promo',
          customerProfile: 'promo',
          dailyCap: 1,
          filter: { additionalInfo: { list: tag } },
        });
        expect(created.status).toBe(201);
        const campaignId = created.body.id as string;
        await ts.runDue();
        const sent = await ts.server.store.db
          .selectFrom('messages')
          .select(['id', 'lead_id', 'provider_message_id'])
          .where('campaign_id', '=', campaignId)
          .where('status', '=', 'sent')
          .execute();
        expect(sent).toHaveLength(1);
        expect((await report(ts, single.sid, number, loner.phone, 'undelivered', '30007')).status).toBe(200);
        expect((await client.get(`/campaigns/${campaignId}`)).body.status).toBe('running');
        // The campaign's own window holds 1 filtered of 1 (under 2); the settings number's holds 2: its bound pauses it.
        const campaignLead = leads.find((l) => l.id === sent[0]!.lead_id)!;
        expect(
          (await report(ts, sent[0]!.provider_message_id!, number, campaignLead.phone, 'undelivered', '30007')).status,
        ).toBe(200);
        const paused = (await client.get(`/campaigns/${campaignId}`)).body;
        expect(paused).toMatchObject({ status: 'paused', pauseCode: 'FILTERED' });
        expect(paused.pauseReason).toContain(`from the settings number ${number}`);
        expect(await pausedEvents(ts, campaignId)).toEqual([
          expect.objectContaining({ code: 'FILTERED', sendingNumberId: null, number, filtered: 2 }),
        ]);
      });

      it('filtered sends through a pool number pause the campaigns sending from it (per-number threshold)', async () => {
        const ts = ctx();
        const { client } = await org(ts, { filteredPause: { percent: 20, window: 10 } });
        const pool = await client.post('/sendingNumbers', {
          number: sendingNumber(),
          kind: 'longCode',
          ratePerSecond: 100,
        });
        expect(pool.status).toBe(201);
        expect(
          (await client.post('/customerProfiles', { name: 'promo', openingMessage: 'Hi {{firstName}}!' })).status,
        ).toBe(201);
        // One filtered send outside any campaign, from the pool number.
        const loner = await newLead(client);
        const single = await sentSms(ts, client, loner.id);
        const tag = `n${Math.random().toString(36).slice(2, 8)}`;
        const leads: { id: string; phone: string }[] = [];
        for (let i = 0; i < 3; i += 1) leads.push(await newLead(client, { additionalInfo: { list: tag } }));
        const created = await client.post('/campaigns', {
          name: 'Pool promo',
          customerProfile: 'promo',
          dailyCap: 1,
          filter: { additionalInfo: { list: tag } },
        });
        expect(created.status).toBe(201);
        const campaignId = created.body.id as string;
        await ts.runDue();
        const sent = await ts.server.store.db
          .selectFrom('messages')
          .select(['id', 'lead_id', 'provider_message_id'])
          .where('campaign_id', '=', campaignId)
          .where('status', '=', 'sent')
          .execute();
        expect(sent).toHaveLength(1);
        const poolNumber = pool.body.number as string;
        expect((await report(ts, single.sid, poolNumber, loner.phone, 'undelivered', '30007')).status).toBe(200);
        expect((await client.get(`/campaigns/${campaignId}`)).body.status).toBe('running');
        // The campaign's own window holds 1 filtered of 1 (under 2); the number's holds 2: the number's bound pauses it.
        const campaignLead = leads.find((l) => l.id === sent[0]!.lead_id)!;
        expect(
          (await report(ts, sent[0]!.provider_message_id!, poolNumber, campaignLead.phone, 'undelivered', '30007'))
            .status,
        ).toBe(200);
        const paused = (await client.get(`/campaigns/${campaignId}`)).body;
        expect(paused).toMatchObject({ status: 'paused', pauseCode: 'FILTERED' });
        expect(paused.pauseReason).toContain(`from sending number ${pool.body.id}`);
        expect(await pausedEvents(ts, campaignId)).toEqual([
          expect.objectContaining({ code: 'FILTERED', sendingNumberId: pool.body.id, number: poolNumber, filtered: 2 }),
        ]);
      });
    });
  },
  ENV,
);
