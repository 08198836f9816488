import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { runMissedCallText } from '../../src/calls/calls.service.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { describeEachDialect, uniquePhone, type Client } from '../support/harness.js';
import { signedWebhook } from '../support/twilio-webhooks.js';
import { freshOrg } from '../support/webhooks.js';
import { ALWAYS_OPEN, PUBLIC, SID, sendingNumber, TOKEN, twilioEnv } from './support.js';

const fake = await startFakeTwilio('ACtest', TOKEN);
afterAll(() => fake.close());

/**
 * The missed-call text to a caller no lead holds (calls.service.ts
 * runMissedCallText): a courtesy that goes at most once, never to a withheld
 * or invalid caller ID, and at most once a day to one number.
 */
describeEachDialect(
  'The missed-call text to an unknown caller',
  (ctx) => {
    let acme: Client;
    let OURS: string;
    startEachTestInDaytime(ctx);
    afterEach(() => fake.slowly(0));
    beforeAll(async () => {
      acme = ctx().acme;
      OURS = sendingNumber();
      expect((await acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: OURS })).status).toBe(200);
    });

    const sid = () => `CA${Math.random().toString(16).slice(2).padEnd(32, '0')}`;
    /** Twilio's "A call comes in" webhook for a call to `to` from `from`. */
    const callIn = (from: string, to: string, callSid = sid()) =>
      signedWebhook(ctx(), PUBLIC, TOKEN, '/v1/providers/twilio/voice', {
        From: from,
        To: to,
        CallSid: callSid,
        Direction: 'inbound',
      });
    /** The stored calls from a number (GET /calls shows a lead's calls only). */
    const callsFrom = (phone: string) =>
      ctx()
        .server.store.db.selectFrom('calls')
        .select(['id', 'lead_id', 'outcome', 'status_code', 'status_reason'])
        .where('from_number', '=', phone)
        .orderBy('created_at')
        .execute();
    /** Every Messages request to a number, accepted or not. */
    const textsTo = (phone: string) => fake.requests.filter((r) => r.resource === 'Messages' && r.params.To === phone);

    it('a retry after an answer Twilio lost does not text again: the text goes at most once', async () => {
      const phone = uniquePhone();
      // Twilio takes the text when it arrives, but answers after the adapter gave up (half the 1 s lease).
      fake.slowly(2_000, (p) => {
        if (p.To === phone) fake.slowly(0);
        return 'on_arrival';
      });
      expect((await callIn(phone, OURS)).status).toBe(200);
      await ctx().runDue();
      expect(textsTo(phone)).toHaveLength(1);
      ctx().clock.advance(60_000);
      await ctx().runDue();
      expect(textsTo(phone)).toHaveLength(1);
      const [call] = await callsFrom(phone);
      expect(call).toMatchObject({ status_code: 'FAILED' });
      expect(call!.status_reason).toMatch(/answer was lost .*not sent again/);
      // Twilio took that text: a second call the same day is not texted either.
      expect((await callIn(phone, OURS)).status).toBe(200);
      await ctx().runDue();
      expect(textsTo(phone)).toHaveLength(1);
      expect((await callsFrom(phone))[1]).toMatchObject({ status_code: 'MISSED_CALL_TEXT_SKIPPED' });
    });

    it('a text Twilio did not take (HTTP 429) is retried, and goes once', async () => {
      const phone = uniquePhone();
      fake.failNext((r) => r.params.To === phone, 429, 1);
      expect((await callIn(phone, OURS)).status).toBe(200);
      await ctx().runDue();
      expect(textsTo(phone).map((r) => r.status)).toEqual([429]);
      ctx().clock.advance(60_000);
      await ctx().runDue();
      expect(textsTo(phone).map((r) => r.status)).toEqual([429, 201]);
      expect((await callsFrom(phone))[0]).toMatchObject({ status_code: 'MISSED_CALL_TEXT_SENT' });
    });

    it('a number texted in the last 24 hours is not texted again when it calls again; after a day it is', async () => {
      const phone = uniquePhone();
      expect((await callIn(phone, OURS)).status).toBe(200);
      await ctx().runDue();
      expect(textsTo(phone)).toHaveLength(1);
      ctx().clock.advance(23 * 3_600_000);
      expect((await callIn(phone, OURS)).status).toBe(200);
      await ctx().runDue();
      expect(textsTo(phone)).toHaveLength(1);
      const again = (await callsFrom(phone))[1]!;
      expect(again.status_code).toBe('MISSED_CALL_TEXT_SKIPPED');
      expect(again.status_reason).toBe(
        'unknown caller; no missed-call text: the number was sent one, or one was tried, in the last 24 hours',
      );
      ctx().clock.advance(2 * 3_600_000);
      expect((await callIn(phone, OURS)).status).toBe(200);
      await ctx().runDue();
      expect(textsTo(phone)).toHaveLength(2);
      expect((await callsFrom(phone))[2]).toMatchObject({ status_code: 'MISSED_CALL_TEXT_SENT' });
    });

    it.each([
      ['+266696687', 'ANONYMOUS spelled on a keypad, no possible number'],
      ['+86282452253', 'UNAVAILABLE spelled on a keypad, a possible number'],
      ['Anonymous', 'the word'],
    ])('a withheld caller ID (%s: %s) gets no text, and the call says why', async (from) => {
      expect((await callIn(from, OURS)).status).toBe(200);
      await ctx().runDue();
      expect(textsTo(from)).toEqual([]);
      const call = (await callsFrom(from)).at(-1)!;
      expect(call).toMatchObject({ lead_id: null, outcome: 'missed', status_code: 'MISSED_CALL_TEXT_SKIPPED' });
      expect(call.status_reason).toBe(`unknown caller; no missed-call text: the caller ID is withheld (${from})`);
    });

    it('a caller ID that is no valid number gets no text', async () => {
      // Possible (ten digits) but in no US area code.
      const from = '+11005550123';
      expect((await callIn(from, OURS)).status).toBe(200);
      await ctx().runDue();
      expect(textsTo(from)).toEqual([]);
      const call = (await callsFrom(from)).at(-1)!;
      expect(call.status_code).toBe('MISSED_CALL_TEXT_SKIPPED');
      expect(call.status_reason).toBe(
        `unknown caller; no missed-call text: the caller ID ${from} is not a valid phone number`,
      );
    });

    it('the same call posted twice by Twilio (one CallSid) is one call row and one text', async () => {
      const phone = uniquePhone();
      const callSid = sid();
      const first = await callIn(phone, OURS, callSid);
      const second = await callIn(phone, OURS, callSid);
      expect(second.status).toBe(200);
      expect(String(second.body)).toBe(String(first.body));
      await ctx().runDue();
      expect(await callsFrom(phone)).toHaveLength(1);
      expect(textsTo(phone)).toHaveLength(1);
    });

    it('the same call posted twice at once is one call row', async () => {
      const phone = uniquePhone();
      const callSid = sid();
      const answers = await Promise.all([callIn(phone, OURS, callSid), callIn(phone, OURS, callSid)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(await callsFrom(phone)).toHaveLength(1);
    });

    it("a known lead's call posted twice is answered with the same relay, one call row", async () => {
      const phone = uniquePhone();
      const lead = await acme.post('/leads/create', { firstName: 'Ann', phone });
      expect(lead.status).toBe(200);
      const callSid = sid();
      const first = String((await callIn(phone, OURS, callSid)).body);
      expect(first).toContain('<ConversationRelay');
      expect(String((await callIn(phone, OURS, callSid)).body)).toBe(first);
      expect(await callsFrom(phone)).toHaveLength(1);
    });

    it('a call to a pool number the carrier retired is texted from the settings number, or not at all without one', async () => {
      const org = await freshOrg(ctx(), 'retired-pool');
      const SETTINGS = sendingNumber();
      expect((await org.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: SETTINGS })).status).toBe(200);
      const pool = await org.post('/sendingNumbers', { number: sendingNumber(), kind: 'longCode', ratePerSecond: 100 });
      expect(pool.status, JSON.stringify(pool.body)).toBe(201);
      const POOL = pool.body.number as string;
      // The carrier refuses the pool number as a sender (30034, unregistered): deliverability retires it.
      const lead = uniquePhone();
      const leadId = (await org.post('/leads/create', { firstName: 'Ann', phone: lead })).body.id as string;
      expect((await org.post(`/leads/${leadId}/sendMessage`, { message: 'Hello', channel: 'sms' })).status).toBe(200);
      await ctx().runDue();
      const sent = fake.accepted('Messages', (p) => p.To === lead);
      expect(sent.map((r) => r.params.From)).toEqual([POOL]);
      const status = await signedWebhook(ctx(), PUBLIC, TOKEN, '/v1/providers/twilio/status', {
        AccountSid: SID,
        MessageSid: sent[0]!.sid!,
        MessageStatus: 'failed',
        From: POOL,
        To: lead,
        ErrorCode: '30034',
      });
      expect(status.status).toBe(200);
      expect((await org.get(`/sendingNumbers/${pool.body.id}`)).body.unusableAt).toEqual(expect.any(String));

      const caller = uniquePhone();
      expect((await callIn(caller, POOL)).status).toBe(200);
      await ctx().runDue();
      expect(textsTo(caller).map((r) => r.params.From)).toEqual([SETTINGS]);

      expect((await org.patch('/settings', { sendingNumber: null })).status).toBe(200);
      const another = uniquePhone();
      expect((await callIn(another, POOL)).status).toBe(200);
      await ctx().runDue();
      expect(textsTo(another)).toEqual([]);
      const [call] = await callsFrom(another);
      expect(call).toMatchObject({ status_code: 'NO_ADDRESS' });
      expect(call!.status_reason).toBe(
        `unknown caller; no missed-call text: the number they called (${POOL}) was retired by the carrier as a sender, and there is no settings number to send from`,
      );
    });
  },
  {
    ...twilioEnv(fake),
    // A Twilio request may take half the lease: 500 ms here.
    PARLEY_LEASE_MS: '1000',
    PARLEY_AI_TIMEOUT_MS: '500',
    PARLEY_WEBHOOK_TIMEOUT_MS: '500',
  },
);

/**
 * Two missed calls from one number whose texts are judged at the same moment, as two workers would judge
 * them: the second waits for the first's mark (a lock per number) and is skipped. No worker runs here, so
 * the two runs below are the only ones.
 */
describeEachDialect(
  'Missed-call texts judged side by side',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('two missed calls from one number judged at the same moment get one text', async () => {
      const ours = sendingNumber();
      expect((await ctx().acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: ours })).status).toBe(200);
      const phone = uniquePhone();
      for (let i = 0; i < 2; i += 1)
        expect(
          (
            await signedWebhook(ctx(), PUBLIC, TOKEN, '/v1/providers/twilio/voice', {
              From: phone,
              To: ours,
              CallSid: `CA${Math.random().toString(16).slice(2).padEnd(32, '0')}`,
              Direction: 'inbound',
            })
          ).status,
        ).toBe(200);
      const calls = () =>
        ctx()
          .server.store.db.selectFrom('calls')
          .select(['id', 'organization_id', 'status_code'])
          .where('from_number', '=', phone)
          .execute();
      const { deps } = ctx().server;
      await Promise.all((await calls()).map((c) => runMissedCallText(deps, c.organization_id, c.id, false)));
      expect(fake.requests.filter((r) => r.resource === 'Messages' && r.params.To === phone)).toHaveLength(1);
      expect((await calls()).map((c) => c.status_code).sort()).toEqual([
        'MISSED_CALL_TEXT_SENT',
        'MISSED_CALL_TEXT_SKIPPED',
      ]);
    });
  },
  { ...twilioEnv(fake), PARLEY_WORKER: 'false' },
);
