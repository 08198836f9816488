import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOP_CONFIRMATION } from '../../src/inbound/inbound.js';
import { insertMessage } from '../../src/messages/messages.repository.js';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { expectError, until } from '../support/assert.js';
import { outboxFor } from '../support/events.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import {
  createLead,
  describeEachDialect,
  uniquePhone,
  type ApiResponse,
  type Client,
  type TestServer,
} from '../support/harness.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { statusAfterStep } from '../support/messages.js';

const SID = 'ACtest';
const TOKEN = 'secret';
const PUBLIC = 'https://parley.example.com';
const ALWAYS_OPEN = { contactHours: { start: '00:00', end: '00:00' } };

const fake = await startFakeTwilio(SID, TOKEN);
afterAll(() => fake.close());

const ENV = {
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_API_BASE_URL: fake.url,
  PARLEY_PUBLIC_URL: PUBLIC,
  PARLEY_WORKER_POLL_MS: '20',
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
};

/**
 * Twilio's documented algorithm, written out here independently of the server:
 * the full URL, then each POST parameter name followed by its value, sorted by
 * name, HMAC-SHA1 keyed by the auth token, base64.
 */
function twilioSign(url: string, params: Record<string, string>, token = TOKEN): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, name) => acc + name + params[name], url);
  return createHmac('sha1', token).update(Buffer.from(data, 'utf-8')).digest('base64');
}

interface WebhookOptions {
  /** A signature to send instead of the right one; null sends none. */
  signature?: string | null;
  contentType?: string;
}

async function webhook(
  ts: TestServer,
  path: string,
  params: Record<string, string>,
  opts: WebhookOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = {
    'content-type': opts.contentType ?? 'application/x-www-form-urlencoded; charset=UTF-8',
  };
  const signature = opts.signature === undefined ? twilioSign(PUBLIC + path, params) : opts.signature;
  if (signature !== null) headers['x-twilio-signature'] = signature;
  return ts.raw(path, { method: 'POST', headers, body: new URLSearchParams(params).toString() });
}

const smsParams = (from: string, to: string, body: string, extra: Record<string, string> = {}) => ({
  ToCountry: 'US',
  ToState: 'CA',
  SmsMessageSid: 'x',
  NumMedia: '0',
  FromCity: 'SAN FRANCISCO',
  SmsSid: 'x',
  SmsStatus: 'received',
  NumSegments: '1',
  ApiVersion: '2010-04-01',
  AccountSid: SID,
  MessageSid: `SM${Math.random().toString(16).slice(2).padEnd(32, '0')}`,
  From: from,
  To: to,
  Body: body,
  ...extra,
});

async function messages(client: Client, leadId: string) {
  const res = await client.get(`/leads/${leadId}/messages`);
  expect(res.status).toBe(200);
  return res.body.messages as {
    id: string;
    content: { text: string };
    channel: string;
    direction: string;
    status: string;
    statusReason: string | null;
  }[];
}

/**
 * Sends, runs the worker's step, and answers the message, which must be settled by then. With `retries`, a
 * send that failed for now is retried: the clock moves a second on (past the 50 ms retry schedule) and the
 * worker steps again, at most four times.
 */
async function sendAndSettle(
  ts: Pick<TestServer, 'runDue' | 'clock'>,
  client: Client,
  leadId: string,
  body: Record<string, unknown>,
  { settled = (s: string) => s === 'sent' || s === 'failed', retries = false } = {},
) {
  const res = await client.post(`/leads/${leadId}/sendMessage`, body);
  expect(res.status).toBe(200);
  return statusAfterStep(ts, client, leadId, res.body.id, settled, { retries: retries ? 4 : 0 });
}

async function providerIdOf(ts: TestServer, messageId: string): Promise<string | null> {
  const row = await ts.server.store.db
    .selectFrom('messages')
    .select('provider_message_id')
    .where('id', '=', messageId)
    .executeTakeFirstOrThrow();
  return row.provider_message_id;
}

let numberCounter = 0;
/** A distinct sending number per organization (the 628 area code keeps them apart from the leads' numbers). */
const sendingNumber = () => `+1628555${String(1000 + (numberCounter++ % 9000)).padStart(4, '0')}`;

/** An organization with its own key and a sending number, open around the clock. */
async function org(ts: TestServer, name: string, number: string | null = sendingNumber()) {
  const client = await ts.clientWithScopes(
    ['leads:read', 'leads:write', 'messages:write', 'settings:read', 'settings:write'],
    name,
  );
  const res = await client.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: number });
  expect(res.status).toBe(200);
  return { client, number };
}

describeEachDialect(
  'Twilio SMS and voice',
  (ctx) => {
    startEachTestInDaytime(ctx);
    let acme: Client;
    let ACME: string;
    beforeAll(async () => {
      const ts = ctx();
      acme = ts.acme;
      ACME = sendingNumber();
      expect((await acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: ACME })).status).toBe(200);
    });

    async function lead(fields: Record<string, unknown> = {}) {
      const phone = uniquePhone();
      return { id: await createLead(acme, { phone, ...fields }), phone };
    }

    /**
     * What the lead said on a recorded call (say, then gather one answer) placed before every voice
     * message became a live call: the gather webhook still hears it, and the scripted agent answers
     * with its profile's question on voice, which is now a live call (docs/voice.md).
     */
    async function answeredRecordedCall(question: string) {
      const profile = `recorded-${Math.random().toString(36).slice(2, 8)}`;
      expect((await acme.post('/customerProfiles', { name: profile, questions: [question] })).status).toBe(201);
      const { id, phone } = await lead({ customerProfile: profile, isAiOn: true });
      const gathered = await webhook(ctx(), '/v1/providers/twilio/voice/gather', {
        AccountSid: SID,
        CallSid: `CA${Math.random().toString(16).slice(2).padEnd(32, '0')}`,
        CallStatus: 'in-progress',
        Direction: 'outbound-api',
        From: ACME,
        To: phone,
        SpeechResult: 'Hello?',
      });
      expect(gathered.status).toBe(200);
      await ctx().runDue();
      const m = (await messages(acme, id)).find((x) => x.direction === 'outbound');
      expect(m?.status, 'the reply was sent or failed in the step').toMatch(/^(sent|failed)$/);
      return { id, phone, m: m! };
    }

    /** A recorded call's message as the version before live calls stored it: sent, its provider id the CallSid. */
    async function recordedCallMessage(ts: TestServer, leadId: string) {
      const db = ts.server.store.db;
      const { organization_id } = await db
        .selectFrom('leads')
        .select('organization_id')
        .where('id', '=', leadId)
        .executeTakeFirstOrThrow();
      const id = `msg-recorded-${Math.random().toString(36).slice(2, 10)}`;
      const sid = `CA${Math.random().toString(16).slice(2).padEnd(32, '0')}`;
      const at = ts.clock.now().toISOString();
      await insertMessage(db, organization_id, {
        id,
        lead_id: leadId,
        channel: 'voice',
        direction: 'outbound',
        owner: 'user',
        text: 'A recorded call',
        is_ai_generated: 1,
        status: 'sent',
        status_reason: null,
        scheduled_at: at,
        created_at: at,
        purpose: 'conversation',
        provider_message_id: sid,
      });
      return { id, sid };
    }

    describe('sending', () => {
      it('sends an SMS with a Messages.json POST from the organization number to the lead', async () => {
        const ts = ctx();
        const { id, phone } = await lead();
        const text = `Hello from Acme & co ${Math.random()}`;
        const m = await sendAndSettle(ctx(), acme, id, { message: text });
        expect(m).toMatchObject({ status: 'sent', statusReason: null, channel: 'sms' });
        const sent = fake.accepted('Messages', (p) => p.Body === text);
        expect(sent).toHaveLength(1);
        expect(sent[0]!.params).toEqual({
          To: phone,
          From: ACME,
          Body: text,
          StatusCallback: `${PUBLIC}/v1/providers/twilio/status`,
        });
        expect(await providerIdOf(ts, m.id)).toBe(sent[0]!.sid);
      });

      it("an agent's answer to a recorded call's speech is a live call, never another recorded call", async () => {
        const tag = Math.random().toString(36).slice(2, 8);
        const { m, phone } = await answeredRecordedCall(`Is your viewing ${tag} at 5 <pm> & will you bring "ID"?`);
        expect(m).toMatchObject({ status: 'sent', channel: 'voice', direction: 'outbound', isAiGenerated: true });
        const calls = fake.accepted('Calls', (p) => p.To === phone);
        expect(calls).toHaveLength(1);
        const { params } = calls[0]!;
        expect(params).toMatchObject({ To: phone, From: ACME });
        expect(params.Twiml).toContain('<Connect action=');
        expect(params.Twiml).toContain(
          `welcomeGreeting="Is your viewing ${tag} at 5 &lt;pm&gt; &amp; will you bring &quot;ID&quot;?"`,
        );
        expect(params.Twiml).not.toContain('<Gather');
      });

      it('without a sending number the send ends failed, with the reason, and Twilio is never called', async () => {
        const ts = ctx();
        const { client } = await org(ts, 'twilio-no-number', null);
        const id = await createLead(client, { phone: uniquePhone() });
        const text = `nobody sends this ${Math.random()}`;
        const m = await sendAndSettle(ts, client, id, { message: text }, { retries: true });
        expect(m.status).toBe('failed');
        expect(m.statusReason).toMatch(/no sending number: set sendingNumber/);
        expect(fake.requests.filter((r) => r.params.Body === text)).toHaveLength(0);
        // The message is recorded failed first; the runner closes its job right after.
        const job = () =>
          ts.server.store.db
            .selectFrom('jobs')
            .selectAll()
            .where('payload', 'like', `%${m.id}%`)
            .executeTakeFirstOrThrow();
        expect(await until(job, (j) => j.status === 'done')).toMatchObject({ status: 'done', attempts: 3 });
      });

      it('retries after a Twilio 500 and is sent by the next attempt', async () => {
        const { id } = await lead();
        const text = `flaky ${Math.random()}`;
        fake.failNext((r) => r.params.Body === text, 500, 1);
        const m = await sendAndSettle(ctx(), acme, id, { message: text }, { retries: true });
        expect(m).toMatchObject({ status: 'sent', statusReason: null });
        expect(fake.requests.filter((r) => r.params.Body === text).map((r) => r.status)).toEqual([500, 201]);
      });

      it('records the last Twilio error when every attempt fails', async () => {
        const { id } = await lead();
        const text = `always down ${Math.random()}`;
        fake.failNext((r) => r.params.Body === text, 503, 10);
        const m = await sendAndSettle(ctx(), acme, id, { message: text }, { retries: true });
        expect(m.status).toBe('failed');
        expect(m.statusReason).toBe('provider error: Twilio answered HTTP 503: 20500 Internal Server Error');
        expect(fake.requests.filter((r) => r.params.Body === text)).toHaveLength(3);
      });
    });

    describe('inbound SMS', () => {
      it('stores a signed SMS from the lead and answers empty TwiML', async () => {
        const ts = ctx();
        const { id, phone } = await lead();
        const params = smsParams(phone, ACME, 'Is the flat still available?');
        const res = await webhook(ts, '/v1/providers/twilio/sms', params);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
        expect(res.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><Response\/>$/);
        const [m, ...rest] = await messages(acme, id);
        expect(rest).toHaveLength(0);
        expect(m).toMatchObject({
          content: { text: 'Is the flat still available?' },
          channel: 'sms',
          direction: 'inbound',
          status: 'received',
        });
        expect(await providerIdOf(ts, m!.id)).toBe(params.MessageSid);
        expect((await acme.get(`/leads/${id}`)).body.hasReplied).toBe(true);
        expect((await outboxFor(ts, id, 'message.received')).map((e) => e.data.text)).toEqual([
          'Is the flat still available?',
        ]);

        // Twilio delivering the same webhook again (a retry, a replay) does not record it twice.
        expect((await webhook(ts, '/v1/providers/twilio/sms', params)).status).toBe(200);
        expect(await messages(acme, id)).toHaveLength(1);
      });

      it('STOP through Twilio unsubscribes sms by keyword and sends exactly one confirmation through the REST API', async () => {
        const ts = ctx();
        const { id, phone } = await lead();
        expect((await webhook(ts, '/v1/providers/twilio/sms', smsParams(phone, ACME, 'STOP'))).status).toBe(200);
        expect((await acme.get(`/leads/${id}`)).body.subscriptions).toMatchObject({
          sms: 'unsubscribed',
          voice: 'subscribed',
        });
        const optOuts = await outboxFor(ts, id, 'optOut');
        expect(optOuts).toHaveLength(1);
        expect(optOuts[0]!.data).toMatchObject({ channel: 'sms', source: 'keyword', optOutMessage: 'STOP' });
        await ts.runDue();
        const confirmations = fake.accepted('Messages', (p) => p.To === phone);
        expect(confirmations).toHaveLength(1);
        expect(confirmations[0]!.params).toMatchObject({ From: ACME, To: phone, Body: STOP_CONFIRMATION });
        // A second STOP changes nothing and confirms nothing.
        expect((await webhook(ts, '/v1/providers/twilio/sms', smsParams(phone, ACME, 'stop'))).status).toBe(200);
        await ts.runDue(); // the step that sent the first confirmation
        expect(fake.accepted('Messages', (p) => p.To === phone)).toHaveLength(1);
        expect(await outboxFor(ts, id, 'optOut')).toHaveLength(1);
      });

      it.each([
        ['BAJA', 'es'],
        ['No me manden más mensajes, por favor', 'es'],
        ['Quiero darme de baja', 'es'],
        ['Dejen de escribirme', 'es'],
        ['STOP', 'en'],
        ['please stop texting me', 'en'],
      ])('confirms the opt-out "%s" in the language it was written in (%s)', async (body, language) => {
        const ts = ctx();
        const { phone } = await lead();
        expect((await webhook(ts, '/v1/providers/twilio/sms', smsParams(phone, ACME, body))).status).toBe(200);
        const settings = (await acme.get('/settings')).body;
        await ts.runDue();
        const confirmations = fake.accepted('Messages', (p) => p.To === phone);
        expect(confirmations.map((c) => c.params.Body)).toEqual([settings.stopConfirmation[language as 'en' | 'es']]);
      });

      it.each([
        ['S\u200bTOP (a zero-width space inside)', 'S\u200bTOP'],
        ['\u2066STOP\u2069 (bidi isolates around)', '\u2066STOP\u2069'],
        ['un\u00ADsubscribe (a soft hyphen inside)', 'un\u00ADsubscribe'],
        ['the stop-sign emoji alone', '\u{1F6D1}\uFE0F'],
      ])('%s through Twilio unsubscribes sms by keyword and confirms once', async (_name, body) => {
        const ts = ctx();
        const { id, phone } = await lead();
        expect((await webhook(ts, '/v1/providers/twilio/sms', smsParams(phone, ACME, body))).status).toBe(200);
        expect((await acme.get(`/leads/${id}`)).body.subscriptions).toMatchObject({
          sms: 'unsubscribed',
          voice: 'subscribed',
        });
        const optOuts = await outboxFor(ts, id, 'optOut');
        expect(optOuts.map((e) => e.data)).toMatchObject([{ channel: 'sms', source: 'keyword', optOutMessage: body }]);
        await ts.runDue();
        const confirmations = fake.accepted('Messages', (p) => p.To === phone);
        expect(confirmations.map((c) => c.params.Body)).toEqual([STOP_CONFIRMATION]);
      });

      it.each([
        ['a wrong signature', (_p: Record<string, string>) => 'dGhpcyBpcyBub3QgYSBzaWduYXR1cmU='],
        ['no signature', (_p: Record<string, string>) => null],
        ['an empty signature', (_p: Record<string, string>) => ''],
        [
          'a signature made with another auth token',
          (p: Record<string, string>) => twilioSign(`${PUBLIC}/v1/providers/twilio/sms`, p, 'not-the-token'),
        ],
        [
          'a signature of other parameters',
          (p: Record<string, string>) => twilioSign(`${PUBLIC}/v1/providers/twilio/sms`, { ...p, Body: 'Hi there' }),
        ],
        [
          'a signature of another URL',
          (p: Record<string, string>) => twilioSign(`${PUBLIC}/v1/providers/twilio/status`, p),
        ],
        [
          'a signature of the local URL',
          (p: Record<string, string>) => twilioSign(`http://127.0.0.1/v1/providers/twilio/sms`, p),
        ],
      ])('refuses %s with 403 and stores nothing', async (_name, signatureFor) => {
        const ts = ctx();
        const { id, phone } = await lead();
        const params = smsParams(phone, ACME, 'STOP');
        expectError(
          await webhook(ts, '/v1/providers/twilio/sms', params, { signature: signatureFor(params) }),
          403,
          'Forbidden',
        );
        expect(await messages(acme, id)).toHaveLength(0);
        expect((await acme.get(`/leads/${id}`)).body.subscriptions.sms).toBe('subscribed');
        expect((await outboxFor(ts, id)).filter((e) => e.type !== 'lead.created')).toHaveLength(0);
        const unmatched = await ts.server.store.db
          .selectFrom('unmatched_inbound')
          .selectAll()
          .where('sender', '=', phone)
          .execute();
        expect(unmatched).toHaveLength(0);
      });

      it('refuses an unsigned request before looking at its fields', async () => {
        const ts = ctx();
        expectError(
          await webhook(ts, '/v1/providers/twilio/sms', { Body: 'no From, no To' }, { signature: null }),
          403,
          'Forbidden',
        );
        expectError(await webhook(ts, '/v1/providers/twilio/status', {}, { signature: null }), 403, 'Forbidden');
        expectError(await webhook(ts, '/v1/providers/twilio/voice/gather', {}, { signature: 'x' }), 403, 'Forbidden');
      });

      it('answers 404 for a To number no organization sends from, and stores nothing', async () => {
        const ts = ctx();
        const phone = uniquePhone();
        const res = await webhook(ts, '/v1/providers/twilio/sms', smsParams(phone, '+16285559999', 'hello?'));
        expectError(res, 404, 'No organization has the sending number +16285559999');
        const unmatched = await ts.server.store.db
          .selectFrom('unmatched_inbound')
          .selectAll()
          .where('sender', '=', phone)
          .execute();
        expect(unmatched).toHaveLength(0);
      });

      it('finds the lead within the organization of the To number only', async () => {
        const ts = ctx();
        const other = await org(ts, 'twilio-other-inbound');
        const phone = uniquePhone();
        const acmeLead = await createLead(acme, { phone });
        const otherLead = await createLead(other.client, { phone });
        expect(
          (await webhook(ts, '/v1/providers/twilio/sms', smsParams(phone, other.number!, 'for the other one'))).status,
        ).toBe(200);
        expect(await messages(acme, acmeLead)).toHaveLength(0);
        expect((await messages(other.client, otherLead)).map((m) => m.content.text)).toEqual(['for the other one']);
      });

      it('keeps a signed SMS from an unknown sender as unmatched', async () => {
        const ts = ctx();
        const phone = uniquePhone();
        expect((await webhook(ts, '/v1/providers/twilio/sms', smsParams(phone, ACME, 'who is this?'))).status).toBe(
          200,
        );
        const rows = await ts.server.store.db
          .selectFrom('unmatched_inbound')
          .selectAll()
          .where('sender', '=', phone)
          .execute();
        expect(rows).toMatchObject([{ channel: 'sms', recipient: ACME, text: 'who is this?' }]);
      });

      it('signs the query string too', async () => {
        const ts = ctx();
        const { id, phone } = await lead();
        const params = smsParams(phone, ACME, 'with a query');
        const path = '/v1/providers/twilio/sms?source=twilio';
        expect((await webhook(ts, path, params)).status).toBe(200);
        expectError(
          await webhook(ts, path, params, { signature: twilioSign(`${PUBLIC}/v1/providers/twilio/sms`, params) }),
          403,
          'Forbidden',
        );
        expect(await messages(acme, id)).toHaveLength(1);
      });
    });

    describe('voice', () => {
      it('stores what the lead said on our call as an inbound voice message, then thanks and hangs up', async () => {
        const ts = ctx();
        const { id, phone } = await lead();
        const params = {
          AccountSid: SID,
          CallSid: 'CA0123456789abcdef0123456789abcdef',
          CallStatus: 'in-progress',
          Direction: 'outbound-api',
          From: ACME,
          To: phone,
          SpeechResult: 'Yes, Tuesday works for me.',
          Confidence: '0.92',
          ApiVersion: '2010-04-01',
        };
        const res = await webhook(ts, '/v1/providers/twilio/voice/gather', params);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/xml/);
        expect(res.body).toContain('<Hangup/>');
        expect(res.body).toMatch(/<Say>Thank you/);
        const ms = await messages(acme, id);
        expect(ms).toHaveLength(1);
        expect(ms[0]).toMatchObject({
          content: { text: 'Yes, Tuesday works for me.' },
          channel: 'voice',
          direction: 'inbound',
          status: 'received',
        });
      });

      it('on a call the lead placed to our number, From is the lead', async () => {
        const ts = ctx();
        const { id, phone } = await lead();
        const params = {
          CallSid: 'CAfeed',
          Direction: 'inbound',
          From: phone,
          To: ACME,
          SpeechResult: 'Call me back tomorrow',
        };
        expect((await webhook(ts, '/v1/providers/twilio/voice/gather', params)).status).toBe(200);
        expect((await messages(acme, id)).map((m) => [m.channel, m.content.text])).toEqual([
          ['voice', 'Call me back tomorrow'],
        ]);
      });

      it('a spoken opt-out goes through the same pipeline', async () => {
        const ts = ctx();
        const { id, phone } = await lead();
        const params = {
          CallSid: 'CAopt',
          Direction: 'outbound-api',
          From: ACME,
          To: phone,
          SpeechResult: "Don't call me",
        };
        const res = await webhook(ts, '/v1/providers/twilio/voice/gather', params);
        expect(res.status).toBe(200);
        // The call ends at once, politely, saying it will not happen again.
        expect(res.body).toContain('<Say>Understood. We will not call you again. Goodbye.</Say><Hangup/>');
        expect((await acme.get(`/leads/${id}`)).body.subscriptions).toMatchObject({
          voice: 'unsubscribed',
          sms: 'subscribed',
        });
        const [optOut] = await outboxFor(ts, id, 'optOut');
        expect(optOut!.data).toMatchObject({
          channel: 'call',
          source: 'voice',
          optOutMessage: null,
          isTwilioOptOut: true,
          optOutReason: null,
        });
        // Recorded in the ledger with the call that carried it; the API cannot lift it.
        const [record] = (await acme.get(`/leads/${id}/consent`)).body.records;
        expect(record).toMatchObject({ channel: 'voice', action: 'optOut', source: 'voice', actor: 'twilio:CAopt' });
        expect((await acme.post(`/leads/${id}/resubscribe`, { channels: ['voice'] })).status).toBe(409);
      });

      it('an ordinary answer on a call ends it with a thank-you, not the opt-out goodbye', async () => {
        const ts = ctx();
        const { phone } = await lead();
        const res = await webhook(ts, '/v1/providers/twilio/voice/gather', {
          CallSid: 'CAok',
          Direction: 'outbound-api',
          From: ACME,
          To: phone,
          SpeechResult: 'Tuesday works',
        });
        expect(res.body).toContain('<Say>Thank you. Goodbye.</Say><Hangup/>');
      });

      it('silence stores nothing and still ends the call', async () => {
        const ts = ctx();
        const { id, phone } = await lead();
        const res = await webhook(ts, '/v1/providers/twilio/voice/gather', {
          CallSid: 'CAquiet',
          Direction: 'outbound-api',
          From: ACME,
          To: phone,
          SpeechResult: '',
        });
        expect(res.status).toBe(200);
        expect(res.body).toContain('<Hangup/>');
        expect(await messages(acme, id)).toHaveLength(0);
      });
    });

    describe('status callbacks', () => {
      it('moves a sent SMS to delivered, or undelivered with the error code; intermediate states change nothing', async () => {
        const ts = ctx();
        const { id, phone } = await lead();
        const m = await sendAndSettle(ctx(), acme, id, { message: `status ${Math.random()}` });
        const sid = (await providerIdOf(ts, m.id))!;
        const report = (status: string, extra: Record<string, string> = {}) =>
          webhook(ts, '/v1/providers/twilio/status', {
            AccountSid: SID,
            MessageSid: sid,
            SmsSid: sid,
            MessageStatus: status,
            SmsStatus: status,
            From: ACME,
            To: phone,
            ApiVersion: '2010-04-01',
            ...extra,
          });
        const statusOf = async () => (await messages(acme, id)).find((x) => x.id === m.id)!;

        const sent = await report('sent');
        expect(sent.status).toBe(200);
        expect(sent.body).toMatch(/<Response\/>$/);
        expect((await statusOf()).status).toBe('sent');
        expect((await report('delivered')).status).toBe(200);
        expect(await statusOf()).toMatchObject({ status: 'delivered', statusReason: null });
        expect((await report('undelivered', { ErrorCode: '30003' })).status).toBe(200);
        expect(await statusOf()).toMatchObject({ status: 'undelivered', statusReason: 'Twilio error 30003' });
        expect((await report('failed', { ErrorCode: '30008' })).status).toBe(200);
        expect(await statusOf()).toMatchObject({ status: 'failed', statusReason: 'Twilio error 30008' });
      });

      it("maps a recorded call's outcomes (placed before live calls): completed is delivered, no-answer undelivered", async () => {
        const ts = ctx();
        const { id, phone } = await lead();
        const { id: messageId, sid } = await recordedCallMessage(ts, id);
        const m = { id: messageId };
        const report = (status: string) =>
          webhook(ts, '/v1/providers/twilio/status', {
            AccountSid: SID,
            CallSid: sid,
            CallStatus: status,
            Direction: 'outbound-api',
            From: ACME,
            To: phone,
          });
        const statusOf = async () => (await messages(acme, id)).find((x) => x.id === m.id)!;
        expect((await report('ringing')).status).toBe(200);
        expect((await statusOf()).status).toBe('sent');
        expect((await report('no-answer')).status).toBe(200);
        expect(await statusOf()).toMatchObject({
          status: 'undelivered',
          statusReason: 'Twilio reported call no-answer',
        });
        expect((await report('completed')).status).toBe(200);
        expect(await statusOf()).toMatchObject({ status: 'delivered', statusReason: null });
      });

      it('never touches a message of another organization', async () => {
        const ts = ctx();
        const other = await org(ts, 'twilio-other-status');
        const { id, phone } = await lead();
        const m = await sendAndSettle(ctx(), acme, id, { message: `not yours ${Math.random()}` });
        const sid = (await providerIdOf(ts, m.id))!;
        const res = await webhook(ts, '/v1/providers/twilio/status', {
          MessageSid: sid,
          MessageStatus: 'failed',
          From: other.number!,
          To: phone,
        });
        expect(res.status).toBe(200);
        expect((await messages(acme, id)).find((x) => x.id === m.id)!.status).toBe('sent');
      });
    });

    describe('settings.sendingNumber', () => {
      it('is normalised, unique across organizations (409), and free again once released', async () => {
        const ts = ctx();
        const first = await org(ts, 'twilio-number-1', null);
        const second = await org(ts, 'twilio-number-2', null);
        const res = await first.client.patch('/settings', { sendingNumber: '(628) 555-0199' });
        expect(res.status).toBe(200);
        expect(res.body.sendingNumber).toBe('+16285550199');
        expect((await first.client.get('/settings')).body.sendingNumber).toBe('+16285550199');

        expectError(
          await second.client.patch('/settings', { sendingNumber: '+16285550199', helpText: 'changed?' }),
          409,
          'Sending number +16285550199 is already used by another organization',
        );
        expect((await second.client.get('/settings')).body).toMatchObject({
          sendingNumber: null,
          helpText: expect.not.stringContaining('changed?'),
        });

        // Setting the number an organization already has is not a conflict with itself.
        expect((await first.client.patch('/settings', { sendingNumber: '+16285550199' })).status).toBe(200);
        expect((await first.client.patch('/settings', { sendingNumber: null })).body.sendingNumber).toBeNull();
        expect((await second.client.patch('/settings', { sendingNumber: '+16285550199' })).body.sendingNumber).toBe(
          '+16285550199',
        );
      });

      it('rejects a number that is not one, naming the field', async () => {
        const ts = ctx();
        const { client } = await org(ts, 'twilio-number-bad', null);
        expectError(
          await client.patch('/settings', { sendingNumber: 'call us' }),
          400,
          'sendingNumber is not a valid phone number',
        );
        expectError(
          await client.patch('/settings', { sendingNumber: 16285550100 }),
          400,
          'sendingNumber must be a string or null',
        );
      });
    });

    describe('content types', () => {
      it('a form body on a JSON route is still 415', async () => {
        const res = await acme.call('POST', '/leads/create', 'firstName=A&phone=%2B14155550100', {
          'content-type': 'application/x-www-form-urlencoded',
        });
        expectError(res, 415, 'Unsupported Media Type: send Content-Type: application/json');
      });

      it('a JSON body on a Twilio route is 415', async () => {
        const ts = ctx();
        const res = await ts.raw('/v1/providers/twilio/sms', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-twilio-signature': twilioSign(`${PUBLIC}/v1/providers/twilio/sms`, {}),
          },
          body: JSON.stringify({ From: uniquePhone(), To: ACME, Body: 'json' }),
        });
        expect(res.status).toBe(415);
      });

      it('the Twilio routes take no API key and are not in the OpenAPI document', async () => {
        const ts = ctx();
        const doc = (await ts.raw('/v1/openapi.json')).body as { paths: Record<string, unknown> };
        expect(Object.keys(doc.paths).filter((p) => p.startsWith('/providers'))).toEqual([]);
      });
    });
  },
  ENV,
);

describeEachDialect(
  'Twilio not configured',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('the webhooks answer 404 and accept nothing, even correctly signed', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', { sendingNumber: '+16285550111' });
      const phone = uniquePhone();
      const id = await createLead(ts.acme, { phone });
      for (const path of [
        '/v1/providers/twilio/sms',
        '/v1/providers/twilio/voice/gather',
        '/v1/providers/twilio/status',
      ]) {
        const params = smsParams(phone, '+16285550111', 'STOP');
        expectError(await webhook(ts, path, params), 404, 'Twilio is not configured on this server');
      }
      expect(await messages(ts.acme, id)).toHaveLength(0);
    });

    it('sms and voice go to the log adapter: sent, and Twilio never hears of it', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const id = await createLead(ts.acme, { phone: uniquePhone() });
      const text = `logged only ${Math.random()}`;
      expect((await sendAndSettle(ctx(), ts.acme, id, { message: text, channel: 'voice' })).status).toBe('sent');
      expect(fake.requests.filter((r) => r.params.Twiml?.includes(text))).toHaveLength(0);
    });
  },
  { PARLEY_PUBLIC_URL: PUBLIC, PARLEY_WORKER_POLL_MS: '20' },
);

describe('Twilio configuration', () => {
  const base = { DATABASE_URL: 'sqlite::memory:' };
  const fails = (env: Record<string, string>, message: string) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  };

  it('is off by default, with the public URL derived from PORT', () => {
    const config = loadConfig({ ...base, PORT: '9090' });
    expect(config.twilio).toBeNull();
    expect(config.publicUrl).toBe('http://localhost:9090');
    expect(config.jobRetryScheduleMs).toEqual([10_000, 60_000, 300_000, 1_800_000, 7_200_000]);
  });

  it('takes both credentials, defaults the API to Twilio, and trims trailing slashes', () => {
    const config = loadConfig({
      ...base,
      TWILIO_ACCOUNT_SID: 'AC123',
      TWILIO_AUTH_TOKEN: 'tok',
      PARLEY_PUBLIC_URL: 'https://x.example.com/parley/',
    });
    expect(config.twilio).toEqual({ accountSid: 'AC123', authToken: 'tok', apiBaseUrl: 'https://api.twilio.com' });
    expect(config.publicUrl).toBe('https://x.example.com/parley');
    expect(
      loadConfig({
        ...base,
        TWILIO_ACCOUNT_SID: 'AC1',
        TWILIO_AUTH_TOKEN: 't',
        TWILIO_API_BASE_URL: 'http://127.0.0.1:4010/',
      }).twilio!.apiBaseUrl,
    ).toBe('http://127.0.0.1:4010');
    expect(loadConfig({ ...base, PARLEY_JOB_RETRY_SCHEDULE: '0,5s,2m' }).jobRetryScheduleMs).toEqual([
      0, 5000, 120_000,
    ]);
  });

  it('fails fast on half a configuration or a bad value, naming the variable', () => {
    fails({ TWILIO_ACCOUNT_SID: 'AC123' }, 'TWILIO_AUTH_TOKEN must be set when TWILIO_ACCOUNT_SID is set');
    fails({ TWILIO_AUTH_TOKEN: 'tok' }, 'TWILIO_ACCOUNT_SID must be set when TWILIO_AUTH_TOKEN is set');
    fails({ TWILIO_ACCOUNT_SID: 'AC:1', TWILIO_AUTH_TOKEN: 'tok' }, 'TWILIO_ACCOUNT_SID must be letters and digits');
    fails(
      { TWILIO_ACCOUNT_SID: 'AC1', TWILIO_AUTH_TOKEN: 'tok', TWILIO_API_BASE_URL: 'ftp://api' },
      'TWILIO_API_BASE_URL must be an http:// or https:// URL',
    );
    fails({ PARLEY_PUBLIC_URL: 'parley.example.com' }, 'PARLEY_PUBLIC_URL must be an http:// or https:// URL');
    fails(
      { PARLEY_PUBLIC_URL: 'https://parley.example.com/?a=1' },
      'PARLEY_PUBLIC_URL must be an http:// or https:// URL',
    );
    fails({ PARLEY_JOB_RETRY_SCHEDULE: '5s,soon' }, 'PARLEY_JOB_RETRY_SCHEDULE must be a comma list of durations');
  });
});
