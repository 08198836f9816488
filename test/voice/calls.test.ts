import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../support/assert.js';
import { LATE_NIGHT, NEXT_MORNING, startEachTestInDaytime } from '../support/clock-hours.js';
import { outboxFor } from '../support/events.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { connectRelay } from '../support/fake-relay.js';
import { createLead, describeEachDialect, uniquePhone, type Client } from '../support/harness.js';
import { signedWebhook } from '../support/twilio-webhooks.js';
import { freshOrg } from '../support/webhooks.js';
import {
  ALWAYS_OPEN,
  callback,
  placeCall,
  PUBLIC,
  sendingNumber,
  TOKEN,
  twilioEnv,
  twimlAttr,
  voiceMessages,
} from './support.js';

const fake = await startFakeTwilio('ACtest', TOKEN);
afterAll(() => fake.close());

const QUESTIONS = ['When do you want to move?', 'What is your budget?'];

describeEachDialect(
  'Live calls with the scripted agent',
  (ctx) => {
    let acme: Client;
    let OURS: string;
    startEachTestInDaytime(ctx);
    beforeAll(async () => {
      acme = ctx().acme;
      OURS = sendingNumber();
      expect((await acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: OURS })).status).toBe(200);
      expect((await acme.post('/customerProfiles', { name: 'movers', questions: QUESTIONS })).status).toBe(201);
      const voice = await acme.call('PUT', '/customerProfiles/movers/voice', {
        voice: 'en-US-Journey-O',
        language: 'en-US',
        welcomeGreeting: 'Hi {{firstName}}, this is Acme Movers.',
        voicemailEnabled: true,
        voicemailText: 'Hi {{firstName}}, Acme Movers here. Call us back!',
        transferNumber: '+16285550199',
      });
      expect(voice.status).toBe(200);
    });

    const lead = async (fields: Record<string, unknown> = {}) => {
      const phone = uniquePhone();
      return { id: await createLead(acme, { phone, customerProfile: 'movers', firstName: 'Ann', ...fields }), phone };
    };

    it('dials with Calls.json: ConversationRelay TwiML with the profile voice, AMD and callbacks', async () => {
      const { id, phone } = await lead();
      const call = await placeCall(acme, fake, id);
      expect(call.params).toMatchObject({
        To: phone,
        From: OURS,
        MachineDetection: 'DetectMessageEnd',
        AsyncAmd: 'true',
        AsyncAmdStatusCallbackMethod: 'POST',
      });
      expect(call.relayUrl).toBe(
        `wss://parley.example.com/v1/providers/twilio/relay?org=${new URL(call.relayUrl).searchParams.get('org')}&call=${call.id}`,
      );
      expect(call.actionUrl.startsWith(`${PUBLIC}/v1/providers/twilio/relay/action?`)).toBe(true);
      expect(call.params.StatusCallback!.startsWith(`${PUBLIC}/v1/providers/twilio/call-status?`)).toBe(true);
      expect(twimlAttr(call.twiml, 'ConversationRelay', 'welcomeGreeting')).toBe('Hi Ann, this is Acme Movers.');
      expect(twimlAttr(call.twiml, 'ConversationRelay', 'voice')).toBe('en-US-Journey-O');
      expect(twimlAttr(call.twiml, 'ConversationRelay', 'language')).toBe('en-US');
      const got = await acme.get(`/calls/${call.id}`);
      expect(got.body).toMatchObject({
        id: call.id,
        leadId: id,
        direction: 'OUTBOUND',
        status: 'queued',
        providerCallId: call.sid,
      });
    });

    it('asks the gate like a send: opted out of voice or on DNC, nothing is dialled', async () => {
      const { id } = await lead();
      expect((await acme.post(`/leads/${id}/unsubscribe`, { channels: ['voice'] })).status).toBe(200);
      const before = fake.accepted('Calls').length;
      const res = await acme.post(`/leads/${id}/call`, {});
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'blocked', statusCode: 'OPTED_OUT', providerCallId: null });
      const dnc = await lead();
      expect((await acme.post('/dnc/register', { phone: dnc.phone })).status).toBe(200);
      const res2 = await acme.post(`/leads/${dnc.id}/call`, {});
      expect(res2.body).toMatchObject({ status: 'blocked', statusCode: 'DNC' });
      const off = await lead({ isAiOn: false });
      expect((await acme.post(`/leads/${off.id}/call`, {})).body).toMatchObject({
        status: 'blocked',
        statusCode: 'AI_OFF',
      });
      // The answers above came after the decision that would have dialled.
      expect(fake.accepted('Calls').length).toBe(before);
    });

    it('counts calls against the frequency cap', async () => {
      const beta = ctx().beta;
      expect(
        (
          await beta.patch('/settings', {
            ...ALWAYS_OPEN,
            sendingNumber: sendingNumber(),
            frequencyCap: { maxAutomatedPerDay: 1 },
          })
        ).status,
      ).toBe(200);
      const id = await createLead(beta, { phone: uniquePhone() });
      expect((await beta.post(`/leads/${id}/call`, {})).body).toMatchObject({ status: 'dialing' });
      const before = fake.accepted('Calls').length;
      const second = await beta.post(`/leads/${id}/call`, {});
      expect(second.body).toMatchObject({ status: 'blocked', statusCode: 'FREQUENCY_CAP' });
      expect(fake.accepted('Calls').length).toBe(before);
      expect((await beta.patch('/settings', { frequencyCap: null })).status).toBe(200);
    });

    it("dials from the lead's voice pool number, at the number's pace", async () => {
      const org = await freshOrg(ctx(), 'voicepool');
      expect((await org.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: sendingNumber() })).status).toBe(200);
      const pool = sendingNumber();
      expect(
        (await org.post('/sendingNumbers', { number: pool, kind: 'longCode', channel: 'voice', ratePerSecond: 0.01 }))
          .status,
      ).toBe(201);
      const first = await createLead(org, { phone: uniquePhone() });
      const dialled = await org.post(`/leads/${first}/call`, {});
      expect(dialled.body).toMatchObject({ status: 'dialing' });
      expect(fake.accepted('Calls', (p) => p.Twiml?.includes(dialled.body.id) ?? false)[0]!.params.From).toBe(pool);
      // One call per 100 s: the next one waits for the number's next slot.
      const second = await createLead(org, { phone: uniquePhone() });
      const held = await org.post(`/leads/${second}/call`, {});
      expect(held.body).toMatchObject({ status: 'waiting', statusCode: 'PACING', providerCallId: null });
      expect(fake.accepted('Calls', (p) => p.Twiml?.includes(held.body.id) ?? false)).toHaveLength(0);
    });

    it('a call held for the night floor is dialled by its job when the window opens', async () => {
      const { id, phone } = await lead();
      ctx().clock.set(LATE_NIGHT);
      const held = await acme.post(`/leads/${id}/call`, {});
      expect(held.body).toMatchObject({ status: 'waiting', statusCode: 'CONTACT_HOURS', providerCallId: null });
      expect(Date.parse(held.body.scheduledTime!)).toBeGreaterThan(LATE_NIGHT.getTime());
      expect(fake.accepted('Calls', (p) => p.To === phone)).toHaveLength(0);
      ctx().clock.set(new Date(Date.parse(held.body.scheduledTime!) + 60_000));
      await ctx().runDue();
      const dialled = fake.accepted('Calls', (p) => p.To === phone);
      expect(dialled).toHaveLength(1);
      expect(dialled[0]!.params.Twiml).toContain(held.body.id);
      expect((await acme.get(`/calls/${held.body.id}`)).body).toMatchObject({
        status: 'queued',
        providerCallId: dialled[0]!.sid,
      });
    });

    it('a follow-up step on the call channel is a live call, its message the greeting', async () => {
      const { id, phone } = await lead();
      const patched = await acme.patch(`/leads/${id}`, {
        followUpConfig: { 1: { hours: 1, channel: 'call', voicemailEnabled: false } },
      });
      expect(patched.status).toBe(200);
      ctx().clock.advance(2 * 3_600_000);
      await ctx().runDue();
      const placed = fake.accepted('Calls', (p) => p.To === phone);
      expect(placed).toHaveLength(1);
      expect(twimlAttr(placed[0]!.params.Twiml!, 'ConversationRelay', 'welcomeGreeting')).toBe(QUESTIONS[0]);
      const calls = (await acme.get(`/leads/${id}/calls`)).body.calls;
      expect(calls[0]).toMatchObject({ status: 'queued', providerCallId: placed[0]!.sid, direction: 'OUTBOUND' });
      // Dialled, the step counts as sent: the cadence moves on (one step: long-term nurture).
      expect((await acme.get(`/leads/${id}`)).body.followUpNote).toMatch(/^step 1 was the last/);
    });

    it('refuses a relay handshake without a valid signature', async () => {
      const { id } = await lead();
      const call = await placeCall(acme, fake, id);
      await expect(connectRelay(ctx().url, call.relayUrl, TOKEN, null)).rejects.toThrow(/HTTP 403/);
      await expect(connectRelay(ctx().url, call.relayUrl, TOKEN, 'bm90IGEgc2lnbmF0dXJl')).rejects.toThrow(/HTTP 403/);
      const tampered = call.relayUrl.replace(call.id, '00000000-0000-7000-8000-000000000000');
      await expect(
        connectRelay(
          ctx().url,
          tampered.replace(/call=[^&]+/, `call=${call.id}`),
          TOKEN,
          (await import('../support/twilio-webhooks.js')).twilioSign(tampered, {}, TOKEN),
        ),
      ).rejects.toThrow(/HTTP 403/);
    });

    it('holds a multi-turn conversation, stores every utterance and announces call.completed', async () => {
      const { id } = await lead();
      const call = await placeCall(acme, fake, id);
      const relay = await connectRelay(ctx().url, call.relayUrl, TOKEN);
      relay.setup(call.sid);
      expect(await relay.say('Hello, yes I have a minute')).toBe(`${QUESTIONS[0]} `);
      expect(await relay.say('In March')).toBe(`${QUESTIONS[1]} `);
      const closing = await relay.say('About two thousand dollars');
      expect(closing).toMatch(/^Thank you, Ann! That is everything I needed/);
      const said = await until(
        () => voiceMessages(acme, id),
        (ms) => ms.length >= 7,
      );
      expect(said.map((m) => [m.direction, m.content.text])).toEqual([
        ['outbound', 'Hi Ann, this is Acme Movers.'],
        ['inbound', 'Hello, yes I have a minute'],
        ['outbound', QUESTIONS[0]],
        ['inbound', 'In March'],
        ['outbound', QUESTIONS[1]],
        ['inbound', 'About two thousand dollars'],
        ['outbound', closing.trim()],
      ]);
      const l = await until(
        async () => (await acme.get(`/leads/${id}`)).body,
        (b) => b.isQualified === true,
      );
      expect(l.summary).toContain('A: In March');
      relay.close();
      expect(
        (
          await callback(ctx(), call.params.StatusCallback!, {
            CallSid: call.sid,
            CallStatus: 'completed',
            CallDuration: '42',
          })
        ).status,
      ).toBe(200);
      const events = await outboxFor(ctx(), id, 'call.completed');
      expect(events).toHaveLength(1);
      expect(events[0]!.data).toMatchObject({
        leadId: id,
        profile: 'movers',
        callId: call.id,
        durationSeconds: 42,
        direction: 'OUTBOUND',
      });
      // A repeated callback does not announce it twice.
      await callback(ctx(), call.params.StatusCallback!, {
        CallSid: call.sid,
        CallStatus: 'completed',
        CallDuration: '42',
      });
      expect(await outboxFor(ctx(), id, 'call.completed')).toHaveLength(1);
      expect((await acme.get(`/calls/${call.id}`)).body).toMatchObject({
        status: 'completed',
        durationSeconds: 42,
        outcome: 'completed',
      });
      const timeline = await acme.get(`/leads/${id}/events?since=2000-01-01T00:00:00Z&types=CALL`);
      expect(timeline.status).toBe(200);
      const item = (timeline.body.events as { type: string; data: Record<string, unknown> }[]).find(
        (e) => e.data.kind === 'call',
      );
      expect(item).toMatchObject({
        type: 'CALL',
        data: { callId: call.id, direction: 'OUTBOUND', durationSeconds: 42, outcome: 'completed' },
      });
      // The utterances are CALL items too, in the order they were said.
      expect(timeline.body.events.filter((e) => !('kind' in e.data) || e.data.kind !== 'call')).toHaveLength(7);
    });

    it('hears "stop calling me": a spoken voice opt-out, a polite goodbye, the call ended', async () => {
      const { id } = await lead();
      const call = await placeCall(acme, fake, id);
      const relay = await connectRelay(ctx().url, call.relayUrl, TOKEN);
      relay.setup(call.sid);
      relay.send({ type: 'prompt', voicePrompt: 'Please stop calling me', last: true });
      const end = await relay.waitFor((m) => m.type === 'end');
      expect(JSON.parse(end.handoffData!)).toEqual({ reasonCode: 'opted-out' });
      const l = (await acme.get(`/leads/${id}`)).body;
      expect(l.subscriptions.voice).toBe('unsubscribed');
      const consent = await acme.get(`/leads/${id}/consent`);
      if (consent.status === 200) expect(JSON.stringify(consent.body)).toContain('spoken');
      const after = await callback(ctx(), call.actionUrl, {
        CallSid: call.sid,
        SessionStatus: 'ended',
        HandoffData: end.handoffData!,
      });
      expect(after.body).toContain('<Say>Understood. We will not call you again. Goodbye.</Say><Hangup/>');
      expect((await acme.post(`/leads/${id}/call`, {})).body).toMatchObject({
        status: 'blocked',
        statusCode: 'OPTED_OUT',
      });
      relay.close();
    });

    it('puts the number on DNC when the lead asks never to be contacted again', async () => {
      const { id, phone } = await lead();
      const call = await placeCall(acme, fake, id);
      const relay = await connectRelay(ctx().url, call.relayUrl, TOKEN);
      relay.setup(call.sid);
      relay.send({ type: 'prompt', voicePrompt: 'Never contact me again.', last: true });
      await relay.waitFor((m) => m.type === 'end');
      const check = await acme.get(`/dnc/check?phone=${encodeURIComponent(phone)}`);
      expect(check.body).toMatchObject({ isDoNotContact: true });
      relay.close();
    });

    it('leaves the profile voicemail after the beep when a machine answers', async () => {
      const { id } = await lead();
      const call = await placeCall(acme, fake, id);
      // Twilio itself posts AMD's verdict and the call's end to the URLs Calls.json gave, signed.
      const twilio = fake.callbacks(ctx().url);
      expect((await twilio.amd(call.sid, 'machine_end_beep')).status).toBe(200);
      const updates = fake.accepted('CallUpdate', (p) => p.CallSid === call.sid);
      expect(updates).toHaveLength(1);
      expect(updates[0]!.params.Twiml).toBe(
        '<Response><Say>Hi Ann, Acme Movers here. Call us back!</Say><Hangup/></Response>',
      );
      expect((await twilio.status(call.sid, 'completed', 20)).status).toBe(200);
      expect((await acme.get(`/calls/${call.id}`)).body).toMatchObject({
        outcome: 'voicemail',
        status: 'completed',
        durationSeconds: 20,
      });
    });

    it('a follow-up step with voicemailEnabled leaves the voicemail though its profile has it off', async () => {
      expect((await acme.post('/customerProfiles', { name: 'step-voicemail', questions: QUESTIONS })).status).toBe(201);
      const voice = await acme.call('PUT', '/customerProfiles/step-voicemail/voice', {
        voicemailEnabled: false,
        voicemailText: 'Hi {{firstName}}, the step left this.',
      });
      expect(voice.status).toBe(200);
      const { id, phone } = await lead({ customerProfile: 'step-voicemail' });
      const patched = await acme.patch(`/leads/${id}`, {
        followUpConfig: { 1: { hours: 1, channel: 'call', voicemailEnabled: true } },
      });
      expect(patched.status).toBe(200);
      ctx().clock.advance(2 * 3_600_000);
      await ctx().runDue();
      const placed = fake.accepted('Calls', (p) => p.To === phone);
      expect(placed).toHaveLength(1);
      const sid = placed[0]!.sid!;
      const twilio = fake.callbacks(ctx().url);
      expect((await twilio.amd(sid, 'machine_end_beep')).status).toBe(200);
      expect(fake.accepted('CallUpdate', (p) => p.CallSid === sid).map((u) => u.params.Twiml)).toEqual([
        '<Response><Say>Hi Ann, the step left this.</Say><Hangup/></Response>',
      ]);
      expect((await twilio.status(sid, 'completed', 12)).status).toBe(200);
      const calls = (await acme.get(`/leads/${id}/calls`)).body.calls;
      expect(calls[0]).toMatchObject({ outcome: 'voicemail', status: 'completed' });
    });

    it('hangs up on a machine when voicemail is off', async () => {
      const { id } = await lead();
      const call = await placeCall(acme, fake, id, { voicemailEnabled: false });
      expect((await fake.callbacks(ctx().url).amd(call.sid, 'machine_start')).status).toBe(200);
      expect(fake.accepted('CallUpdate', (p) => p.CallSid === call.sid).map((u) => u.params.Status)).toEqual([
        'completed',
      ]);
      expect((await acme.get(`/calls/${call.id}`)).body).toMatchObject({ outcome: 'voicemail' });
    });

    it('records no-answer, busy and failed from the status callback Twilio sends; no call.completed', async () => {
      const twilio = fake.callbacks(ctx().url);
      for (const ending of ['no-answer', 'busy', 'failed'] as const) {
        const { id } = await lead();
        const call = await placeCall(acme, fake, id);
        expect((await twilio.status(call.sid, ending, 0)).status).toBe(200);
        expect((await acme.get(`/calls/${call.id}`)).body).toMatchObject({ outcome: ending, status: 'failed' });
        expect(await outboxFor(ctx(), id, 'call.completed')).toHaveLength(0);
      }
    });

    it('a person answering is outcome human, kept when the call completes, and call.completed goes out', async () => {
      const { id } = await lead();
      const call = await placeCall(acme, fake, id);
      const twilio = fake.callbacks(ctx().url);
      expect((await twilio.amd(call.sid, 'human')).status).toBe(200);
      expect((await acme.get(`/calls/${call.id}`)).body).toMatchObject({ outcome: 'human' });
      expect(fake.accepted('CallUpdate', (p) => p.CallSid === call.sid)).toEqual([]);
      expect((await twilio.status(call.sid, 'completed', 42)).status).toBe(200);
      expect((await acme.get(`/calls/${call.id}`)).body).toMatchObject({
        outcome: 'human',
        status: 'completed',
        durationSeconds: 42,
      });
      const completed = await outboxFor(ctx(), id, 'call.completed');
      expect(completed).toHaveLength(1);
      expect(completed[0]!.data).toMatchObject({ callId: call.id, durationSeconds: 42, direction: 'OUTBOUND' });
    });

    it('hears "no me llames más": a spoken voice opt-out, the goodbye, the call ended', async () => {
      const { id } = await lead();
      const call = await placeCall(acme, fake, id);
      const relay = await connectRelay(ctx().url, call.relayUrl, TOKEN);
      relay.setup(call.sid);
      relay.send({ type: 'prompt', voicePrompt: 'No me llames más, por favor.', last: true });
      const end = await relay.waitFor((m) => m.type === 'end');
      expect(JSON.parse(end.handoffData!)).toEqual({ reasonCode: 'opted-out' });
      const l = (await acme.get(`/leads/${id}`)).body;
      expect(l.subscriptions.voice).toBe('unsubscribed');
      expect(l.subscriptions.sms).toBe('subscribed');
      const ledger = await ctx()
        .server.store.db.selectFrom('consent_ledger')
        .select(['channel', 'action', 'source'])
        .where('lead_id', '=', id)
        .execute();
      expect(ledger).toEqual([{ channel: 'voice', action: 'opt_out', source: 'spoken' }]);
      const after = await callback(ctx(), call.actionUrl, {
        CallSid: call.sid,
        SessionStatus: 'ended',
        HandoffData: end.handoffData!,
      });
      expect(after.body).toContain('<Say>Understood. We will not call you again. Goodbye.</Say><Hangup/>');
      relay.close();
    });

    describe('inbound calls', () => {
      it('answers a known lead with the AI on by ConversationRelay, and talks', async () => {
        const { id, phone } = await lead();
        const res = await signedWebhook(ctx(), PUBLIC, TOKEN, '/v1/providers/twilio/voice', {
          From: phone,
          To: OURS,
          CallSid: `CA${'1'.repeat(32)}`,
          Direction: 'inbound',
        });
        expect(res.status).toBe(200);
        const twiml = String(res.body);
        const url = twimlAttr(twiml, 'ConversationRelay', 'url')!;
        expect(url.startsWith('wss://parley.example.com/v1/providers/twilio/relay?')).toBe(true);
        const relay = await connectRelay(ctx().url, url, TOKEN);
        relay.setup(`CA${'1'.repeat(32)}`, { direction: 'inbound' });
        expect(await relay.say('Hi, I saw your ad')).toBe(`${QUESTIONS[0]} `);
        expect(await relay.say('Next month')).toBe(`${QUESTIONS[1]} `);
        const said = await until(
          () => voiceMessages(acme, id),
          (ms) => ms.length >= 5,
        );
        expect(said[0]!.content.text).toBe('Hi Ann, thanks for calling! How can I help you today?');
        relay.close();
        const calls = (await acme.get(`/leads/${id}/calls`)).body.calls;
        expect(calls[0]).toMatchObject({ direction: 'INBOUND', status: 'in-progress' });
      });

      it('a lead with the AI off hears a short message and gets a missed-call text through the gate', async () => {
        const { id, phone } = await lead({ isAiOn: false });
        const res = await signedWebhook(ctx(), PUBLIC, TOKEN, '/v1/providers/twilio/voice', {
          From: phone,
          To: OURS,
          CallSid: `CA${'2'.repeat(32)}`,
        });
        expect(String(res.body)).toMatch(
          /<Say>Sorry, we cannot take your call right now\. We will text you shortly\.<\/Say><Hangup\/>/,
        );
        await ctx().runDue();
        expect(fake.accepted('Messages', (p) => p.To === phone)).toHaveLength(1);
        expect(fake.accepted('Messages', (p) => p.To === phone)[0]!.params.Body).toBe(
          'Sorry we missed your call. How can we help?',
        );
        expect((await acme.get(`/leads/${id}/calls`)).body.calls[0]).toMatchObject({ outcome: 'missed' });
      });

      it("outside the organization's hours the agent does not take the call; the missed-call text follows", async () => {
        const beta = ctx().beta;
        const BETA = sendingNumber();
        // DAYTIME is 09:00 in Los Angeles: the organization's hours there start at 10:00.
        expect(
          (
            await beta.patch('/settings', {
              sendingNumber: BETA,
              timeZone: 'America/Los_Angeles',
              contactHours: { start: '10:00', end: '18:00' },
            })
          ).status,
        ).toBe(200);
        const phone = uniquePhone();
        // In Los Angeles too: the gate judges the text by the organization's hours where the lead is.
        const id = await createLead(beta, { phone, timeZone: 'America/Los_Angeles' });
        const res = await signedWebhook(ctx(), PUBLIC, TOKEN, '/v1/providers/twilio/voice', {
          From: phone,
          To: BETA,
          CallSid: `CA${'4'.repeat(32)}`,
        });
        expect(String(res.body)).not.toContain('ConversationRelay');
        expect(String(res.body)).toContain('<Say>Sorry, we cannot take your call right now.');
        const calls = (await beta.get(`/leads/${id}/calls`)).body.calls;
        expect(calls[0]).toMatchObject({ outcome: 'missed', statusReason: "outside the organization's hours" });
        // The text is the organization's: it waits for its hours, then goes.
        await ctx().runDue();
        expect(fake.accepted('Messages', (p) => p.To === phone)).toEqual([]);
        const waiting = (await beta.get(`/leads/${id}/messages`)).body.messages;
        expect(waiting).toHaveLength(1);
        expect(waiting[0]).toMatchObject({ status: 'scheduled', statusCode: 'CONTACT_HOURS' });
        ctx().clock.set(new Date('2026-07-01T17:01:00Z')); // 10:01 in Los Angeles
        await ctx().runDue();
        const sent = fake.accepted('Messages', (p) => p.To === phone);
        expect(sent).toHaveLength(1);
        expect(sent[0]!.params).toMatchObject({ From: BETA, Body: 'Sorry we missed your call. How can we help?' });
      });

      /** A call to `to` from `from`, as Twilio's "A call comes in" webhook posts it. */
      const callIn = (from: string, to: string) =>
        signedWebhook(ctx(), PUBLIC, TOKEN, '/v1/providers/twilio/voice', {
          From: from,
          To: to,
          CallSid: `CA${Math.random().toString(16).slice(2).padEnd(32, '0')}`,
          Direction: 'inbound',
        });
      /** The stored call of a caller no lead holds: GET /calls shows a lead's calls only. */
      const callFrom = (phone: string) =>
        ctx()
          .server.store.db.selectFrom('calls')
          .select(['lead_id', 'outcome', 'status_code', 'status_reason'])
          .where('from_number', '=', phone)
          .executeTakeFirstOrThrow();
      const missedTexts = (phone: string) => fake.accepted('Messages', (p) => p.To === phone);

      it('an unknown caller hears the message, then the missed-call text follows through the gate', async () => {
        const phone = uniquePhone();
        const res = await callIn(phone, OURS);
        expect(res.status).toBe(200);
        expect(String(res.body)).not.toContain('ConversationRelay');
        expect(String(res.body)).toContain('<Say>Sorry, we cannot take your call right now.');
        await ctx().runDue();
        expect(missedTexts(phone)).toHaveLength(1);
        expect(missedTexts(phone)[0]!.params).toMatchObject({
          From: OURS,
          Body: 'Sorry we missed your call. How can we help?',
        });
        expect(await callFrom(phone)).toMatchObject({
          lead_id: null,
          outcome: 'missed',
          status_code: 'MISSED_CALL_TEXT_SENT',
        });
        // Auto-creation is off: the text made no lead.
        expect((await acme.get(`/leads/lookup?phone=${encodeURIComponent(phone)}`)).status).toBe(404);
      });

      it('an unknown caller on the Do Not Contact list gets no missed-call text', async () => {
        const phone = uniquePhone();
        expect((await acme.post('/dnc/register', { phone })).status).toBeLessThan(300);
        expect((await callIn(phone, OURS)).status).toBe(200);
        await ctx().runDue();
        expect(missedTexts(phone)).toEqual([]);
        expect(await callFrom(phone)).toMatchObject({ lead_id: null, status_code: 'DNC' });
      });

      it('an unknown number that texted STOP earlier gets no missed-call text when it calls', async () => {
        const phone = uniquePhone();
        const stop = await signedWebhook(ctx(), PUBLIC, TOKEN, '/v1/providers/twilio/sms', {
          From: phone,
          To: OURS,
          Body: 'STOP',
          MessageSid: `SM${Math.random().toString(16).slice(2).padEnd(32, '0')}`,
        });
        expect(stop.status).toBe(200);
        expect((await callIn(phone, OURS)).status).toBe(200);
        await ctx().runDue();
        // Neither the STOP (the number is no lead's) nor the call was answered by text.
        expect(missedTexts(phone)).toEqual([]);
        expect(await callFrom(phone)).toMatchObject({ lead_id: null, status_code: 'OPTED_OUT' });
      });

      it('an unknown caller at night where the number is gets the text in the morning, not before', async () => {
        const phone = uniquePhone();
        // 23:00 in Los Angeles, the zone of the +1 415 number; the organization's own hours are open all day.
        ctx().clock.set(LATE_NIGHT);
        expect((await callIn(phone, OURS)).status).toBe(200);
        await ctx().runDue();
        expect(missedTexts(phone)).toEqual([]);
        expect(await callFrom(phone)).toMatchObject({ lead_id: null, status_code: null });
        ctx().clock.set(NEXT_MORNING);
        await ctx().runDue();
        expect(missedTexts(phone)).toHaveLength(1);
        expect((await callFrom(phone)).status_code).toBe('MISSED_CALL_TEXT_SENT');
      });

      it('an unknown caller becomes a lead when inboundLeads is on, and the agent answers the call', async () => {
        const org = await freshOrg(ctx(), 'inbound-callers');
        const number = sendingNumber();
        expect((await org.post('/customerProfiles', { name: 'callers', questions: QUESTIONS })).status).toBe(201);
        const settings = await org.patch('/settings', {
          ...ALWAYS_OPEN,
          sendingNumber: number,
          inboundLeads: { customerProfile: 'callers' },
        });
        expect(settings.status).toBe(200);
        const phone = uniquePhone();
        const res = await callIn(phone, number);
        expect(res.status).toBe(200);
        const url = twimlAttr(String(res.body), 'ConversationRelay', 'url');
        expect(url).toBeDefined();
        const found = await org.get(`/leads/lookup?phone=${encodeURIComponent(phone)}`);
        expect(found.status).toBe(200);
        const relay = await connectRelay(ctx().url, url!, TOKEN);
        relay.setup(`CA${'5'.repeat(32)}`, { direction: 'inbound' });
        expect(await relay.say('Hi, I saw your ad')).toBe(`${QUESTIONS[0]} `);
        relay.close();
        const calls = (await org.get(`/leads/${found.body.id}/calls`)).body.calls;
        expect(calls[0]).toMatchObject({ direction: 'INBOUND', status: 'in-progress' });
        await ctx().runDue();
        expect(missedTexts(phone)).toEqual([]);
      });

      it('refuses an unsigned voice webhook', async () => {
        const res = await ctx().raw('/v1/providers/twilio/voice', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'From=%2B14155550100&To=%2B16285550100',
        });
        expect(res.status).toBe(403);
      });
    });
  },
  twilioEnv(fake),
);

describeEachDialect(
  'Live calls behind a plain http public URL',
  (ctx) => {
    startEachTestInDaytime(ctx);

    it('names a ws:// relay URL, and the handshake signed over it is accepted', async () => {
      const acme = ctx().acme;
      expect((await acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: sendingNumber() })).status).toBe(200);
      const id = await createLead(acme, { phone: uniquePhone(), firstName: 'Ann' });
      const call = await placeCall(acme, fake, id);
      expect(call.relayUrl.startsWith(`ws://parley.example.com:8080/v1/providers/twilio/relay?`)).toBe(true);
      expect(call.actionUrl.startsWith('http://parley.example.com:8080/v1/providers/twilio/relay/action?')).toBe(true);
      const relay = await connectRelay(ctx().url, call.relayUrl, TOKEN);
      relay.setup(call.sid);
      expect((await relay.say('Hello?')).length).toBeGreaterThan(0);
      relay.close();
    });
  },
  { ...twilioEnv(fake), PARLEY_PUBLIC_URL: 'http://parley.example.com:8080' },
);
