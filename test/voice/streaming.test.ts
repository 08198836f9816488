import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../support/assert.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { outboxFor } from '../support/events.js';
import { call, startFakeOpenAi, stream } from '../support/fake-openai.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { connectRelay } from '../support/fake-relay.js';
import { createLead, describeEachDialect, uniquePhone, type Client } from '../support/harness.js';
import { openAiAgentEnv } from '../agent/helpers.js';
import { makeRep } from '../handoffs/support.js';
import { Receiver } from '../support/receiver.js';
import { signedWebhook } from '../support/twilio-webhooks.js';
import { FAST_WEBHOOKS, registerEndpoint } from '../support/webhooks.js';
import {
  ALWAYS_OPEN,
  PUBLIC,
  callback,
  pathOf,
  placeCall,
  sendingNumber,
  TOKEN,
  twilioEnv,
  twimlAttr,
  voiceMessages,
} from './support.js';

const fake = await startFakeTwilio('ACtest', TOKEN);
const model = await startFakeOpenAi();
afterAll(async () => {
  await fake.close();
  await model.close();
});

const TRANSFER_TO = '+16285550142';
const receiver = await new Receiver().start();
afterAll(() => receiver.stop());

describeEachDialect(
  'Live calls with a streaming model',
  (ctx) => {
    let acme: Client;
    const OURS = sendingNumber();
    startEachTestInDaytime(ctx);
    beforeAll(async () => {
      acme = ctx().acme;
      expect((await acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: OURS })).status).toBe(200);
      expect((await acme.post('/customerProfiles', { name: 'sales' })).status).toBe(201);
      expect((await acme.call('PUT', '/customerProfiles/sales/voice', { transferNumber: TRANSFER_TO })).status).toBe(
        200,
      );
    });

    async function connected() {
      const phone = uniquePhone();
      const id = await createLead(acme, { phone, customerProfile: 'sales', firstName: 'Bo' });
      const placed = await placeCall(acme, fake, id);
      const relay = await connectRelay(ctx().url, placed.relayUrl, TOKEN);
      relay.setup(placed.sid);
      return { id, phone, placed, relay };
    }

    it('streams every token as a text message as it arrives, last:true at the end, over several turns', async () => {
      const { id, phone, relay } = await connected();
      model.program(
        phone,
        stream(['Great', ' to', ' hear', ' from', ' you', '!'], { tokenMs: 20 }),
        stream(['We', ' have', ' slots', ' on', ' Monday', '.'], { tokenMs: 5 }),
      );
      const from = relay.received.length;
      expect(await relay.say('Hi there')).toBe('Great to hear from you!');
      const tokens = relay.received.slice(from).filter((m) => m.type === 'text');
      expect(tokens.map((t) => [t.token, t.last])).toEqual([
        ['Great', false],
        [' to', false],
        [' hear', false],
        [' from', false],
        [' you', false],
        ['!', false],
        ['', true],
      ]);
      // Tokens arrive spread over the model's stream, not all at once at the end.
      expect(tokens[5]!.at - tokens[0]!.at).toBeGreaterThan(50);
      expect(await relay.say('When can you come?')).toBe('We have slots on Monday.');
      const req = model.requestsFor(phone);
      expect(req[0]!.body.stream).toBe(true);
      // The second turn's request carries the whole call so far.
      expect(JSON.stringify(req[1]!.body.messages)).toContain('Great to hear from you!');
      const said = await until(
        () => voiceMessages(acme, id),
        (ms) => ms.length >= 5,
      );
      expect(said.map((m) => m.content.text)).toEqual([
        'Hi Bo! Do you have a minute to talk?',
        'Hi there',
        'Great to hear from you!',
        'When can you come?',
        'We have slots on Monday.',
      ]);
      relay.close();
    });

    it('an inbound call holds a multi-turn conversation with the streaming model, and announces call.completed when it ends', async () => {
      // One endpoint at a time on the receiver: it checks signatures with the latest secret.
      const endpoint = await registerEndpoint(acme, receiver, ['call.completed']);
      const phone = uniquePhone();
      const id = await createLead(acme, { phone, customerProfile: 'sales', firstName: 'Ina', isAiOn: true });
      const sid = `CA${'7'.repeat(32)}`;
      const answered = await signedWebhook(ctx(), PUBLIC, TOKEN, '/v1/providers/twilio/voice', {
        From: phone,
        To: OURS,
        CallSid: sid,
        Direction: 'inbound',
      });
      expect(answered.status).toBe(200);
      const twiml = String(answered.body);
      const relay = await connectRelay(ctx().url, twimlAttr(twiml, 'ConversationRelay', 'url')!, TOKEN);
      relay.setup(sid, { direction: 'inbound' });
      model.program(
        phone,
        stream(['Happy', ' to', ' help', '.'], { tokenMs: 10 }),
        stream(['Monday', ' at', ' ten', ' works', '.'], { tokenMs: 10 }),
      );
      expect(await relay.say('Hi, I am calling about the move')).toBe('Happy to help.');
      expect(await relay.say('Can you come Monday?')).toBe('Monday at ten works.');
      const req = model.requestsFor(phone);
      expect(req.map((r) => r.body.stream)).toEqual([true, true]);
      expect(JSON.stringify(req[1]!.body.messages)).toContain('Happy to help.');
      const said = await until(
        () => voiceMessages(acme, id),
        (ms) => ms.length >= 5,
      );
      expect(said.slice(1).map((m) => [m.direction, m.content.text])).toEqual([
        ['inbound', 'Hi, I am calling about the move'],
        ['outbound', 'Happy to help.'],
        ['inbound', 'Can you come Monday?'],
        ['outbound', 'Monday at ten works.'],
      ]);
      relay.close();
      // Twilio sends no status callback for a call to the number: the session's end ends the call.
      ctx().clock.advance(40_000);
      const after = await callback(ctx(), twimlAttr(twiml, 'Connect', 'action')!, {
        CallSid: sid,
        SessionStatus: 'ended',
      });
      expect(String(after.body)).toContain('<Hangup/>');
      const got = await until(
        () => receiver.received.filter((r) => r.json.event === 'call.completed' && JSON.stringify(r.json).includes(id)),
        (r) => r.length >= 1,
      );
      expect(JSON.stringify(got[0]!.json)).toContain('"direction":"INBOUND"');
      const calls = (await acme.get(`/leads/${id}/calls`)).body.calls;
      expect(calls[0]).toMatchObject({ direction: 'INBOUND', status: 'completed' });
      expect(calls[0]!.durationSeconds).toBeGreaterThanOrEqual(40);
      expect((await acme.call('DELETE', `/webhooks/${endpoint.id}`)).status).toBe(200);
    });

    it('an interruption drops the rest of the answer and stores only what the lead heard', async () => {
      const { id, phone, relay } = await connected();
      model.program(
        phone,
        stream(
          [
            'Our',
            ' prices',
            ' start',
            ' at',
            ' ninety',
            ' dollars',
            ' and',
            ' go',
            ' up',
            ' to',
            ' two',
            ' hundred',
            '.',
          ],
          { tokenMs: 60 },
        ),
      );
      relay.send({ type: 'prompt', voicePrompt: 'How much is it?', last: true });
      await relay.waitFor((m) => m.type === 'text' && m.token === ' start');
      relay.send({ type: 'interrupt', utteranceUntilInterrupt: 'Our prices', durationUntilInterruptMs: 900 });
      const said = await until(
        () => voiceMessages(acme, id),
        (ms) => ms.length >= 3,
      );
      expect(said[2]!.content.text).toBe('Our prices');
      // Nothing after the interruption was sent: no `last` for the dropped answer, no token after ' start' + in-flight one.
      expect(relay.received.some((m) => m.token === ' hundred')).toBe(false);
      relay.close();
    });

    it('an interruption after the answer was complete shortens the stored answer', async () => {
      const { id, phone, relay } = await connected();
      model.program(phone, stream(['One', ' two', ' three', ' four.']));
      expect(await relay.say('Count please')).toBe('One two three four.');
      await until(
        () => voiceMessages(acme, id),
        (ms) => ms.length >= 3 && ms[2]!.content.text === 'One two three four.',
      );
      relay.send({ type: 'interrupt', utteranceUntilInterrupt: 'One two', durationUntilInterruptMs: 500 });
      await until(
        () => voiceMessages(acme, id),
        (ms) => ms[2]?.content.text === 'One two',
      );
      relay.close();
    });

    it('DTMF digits reach the model as input', async () => {
      const { phone, relay } = await connected();
      model.program(phone, stream(['You', ' pressed', ' one.']));
      relay.send({ type: 'dtmf', digit: '1' });
      await relay.waitFor((m) => m.type === 'text' && m.last === true);
      expect(JSON.stringify(model.requestsFor(phone).at(-1)!.body.messages)).toContain('(pressed 1)');
      relay.close();
    });

    it('transferCall ends the session with handoffData; the action callback dials the transfer number, whispering the summary', async () => {
      await registerEndpoint(acme, receiver, ['call.completed', 'call.transferred']);
      const { id, phone, placed, relay } = await connected();
      const summary = 'Bo wants a quote for a two bedroom move in March.';
      model.program(
        phone,
        stream(['Let', ' me', ' connect', ' you', '.'], {
          calls: [call('transferCall', { reason: 'ready to buy', summary })],
        }),
      );
      relay.send({ type: 'prompt', voicePrompt: 'I want to book now, can I talk to someone?', last: true });
      const end = await relay.waitFor((m) => m.type === 'end');
      expect(JSON.parse(end.handoffData!)).toEqual({
        reasonCode: 'live-agent-handoff',
        reason: 'ready to buy',
        summary,
      });
      const after = await callback(ctx(), placed.actionUrl, {
        CallSid: placed.sid,
        SessionStatus: 'ended',
        HandoffData: end.handoffData!,
      });
      const twiml = String(after.body);
      expect(twiml).toContain(`>${TRANSFER_TO}</Number>`);
      const whisperUrl = twimlAttr(twiml, 'Number', 'url')!;
      expect(pathOf(whisperUrl).startsWith('/v1/providers/twilio/whisper?')).toBe(true);
      const whisper = await callback(ctx(), whisperUrl, { CallSid: 'CA' + 'f'.repeat(32) });
      expect(String(whisper.body)).toContain(summary);
      expect((await acme.get(`/leads/${id}`)).body.isAiOn).toBe(false);
      const transferred = await outboxFor(ctx(), id, 'call.transferred');
      expect(transferred).toHaveLength(1);
      expect(transferred[0]!.data).toMatchObject({
        leadId: id,
        callId: placed.id,
        transferType: 'WARM',
        transferTo: TRANSFER_TO,
        profile: 'sales',
      });
      // Nobody answered the transfer: the lead hears a message, the team a notification with the summary.
      const dialed = await callback(ctx(), twimlAttr(twiml, 'Dial', 'action')!, {
        CallSid: placed.sid,
        DialCallStatus: 'no-answer',
      });
      expect(String(dialed.body)).toContain('<Say>Sorry, nobody is available');
      const notes = await outboxFor(ctx(), id, 'notification');
      expect(notes.some((n) => String(n.data.notificationMessage).includes(summary))).toBe(true);
      relay.close();
      await callback(ctx(), placed.params.StatusCallback!, {
        CallSid: placed.sid,
        CallStatus: 'completed',
        CallDuration: '95',
      });
      // Both events reach a registered endpoint, signed, in the documented shapes.
      const got = await until(
        () => receiver.received.filter((r) => JSON.stringify(r.json).includes(placed.id)),
        (r) => r.length >= 2,
      );
      const byType = Object.fromEntries(got.map((r) => [r.json.event, r.json]));
      expect(JSON.stringify(byType['call.transferred'])).toContain('"transferType":"WARM"');
      expect(JSON.stringify(byType['call.completed'])).toContain('"durationSeconds":95');
      expect(JSON.stringify(byType['call.completed'])).toContain('"direction":"OUTBOUND"');
      expect(got.every((r) => r.standardSignatureValid)).toBe(true);
    });

    it("a transfer raises a hand-off and dials the lead's owner on their own phone, before the profile's number", async () => {
      const ownerPhone = uniquePhone();
      const rep = await makeRep(ctx(), { name: 'acme', client: acme }, { phone: ownerPhone });
      const { id, phone, placed, relay } = await connected();
      expect((await acme.call('PUT', `/leads/${id}/owner`, { userId: rep.userId })).status).toBe(200);
      model.program(
        phone,
        stream(['One', ' moment', '.'], {
          calls: [call('transferCall', { reason: 'wants a person', summary: 'Bo asks for Sam.' })],
        }),
      );
      relay.send({ type: 'prompt', voicePrompt: 'Can I talk to Sam?', last: true });
      const end = await relay.waitFor((m) => m.type === 'end');
      const after = await callback(ctx(), placed.actionUrl, {
        CallSid: placed.sid,
        SessionStatus: 'ended',
        HandoffData: end.handoffData!,
      });
      expect(String(after.body)).toContain(`>${ownerPhone}</Number>`);
      expect(String(after.body)).not.toContain(TRANSFER_TO);
      const handoffs = (await acme.get(`/handoffs?ownerId=${rep.userId}`)).body;
      expect(JSON.stringify(handoffs)).toContain(id);
      // The owner does not pick up: the lead hears a message, and the owner gets the call's summary by SMS, once
      // (Twilio posting the <Dial action> twice).
      for (let i = 0; i < 2; i++) {
        const dialed = await callback(ctx(), twimlAttr(String(after.body), 'Dial', 'action')!, {
          CallSid: placed.sid,
          DialCallStatus: 'no-answer',
        });
        expect(String(dialed.body)).toContain('<Say>Sorry, nobody is available');
      }
      await ctx().runDue();
      const texts = fake.accepted('Messages', (p) => p.To === ownerPhone).map((m) => m.params.Body ?? '');
      expect(
        texts.filter((t) => t.startsWith('Transfer not answered') && t.includes('Summary: Bo asks for Sam.')),
      ).toHaveLength(1);
      // Away, the owner is not dialled: the profile's number is.
      expect((await acme.patch(`/users/${rep.userId}`, { isAway: true })).status).toBe(200);
      const second = await connected();
      expect((await acme.call('PUT', `/leads/${second.id}/owner`, { userId: rep.userId })).status).toBe(200);
      model.program(
        second.phone,
        stream(['Sure', '.'], {
          calls: [call('transferCall', { reason: 'wants a person', summary: 'Asks for Sam.' })],
        }),
      );
      second.relay.send({ type: 'prompt', voicePrompt: 'Sam please', last: true });
      const end2 = await second.relay.waitFor((m) => m.type === 'end');
      const after2 = await callback(ctx(), second.placed.actionUrl, {
        CallSid: second.placed.sid,
        SessionStatus: 'ended',
        HandoffData: end2.handoffData!,
      });
      expect(String(after2.body)).toContain(`>${TRANSFER_TO}</Number>`);
      relay.close();
      second.relay.close();
    });

    it('a failing model gets an apology spoken, and the call goes on', async () => {
      const { id, phone, relay } = await connected();
      model.program(phone, { kind: 'status', status: 500 }, stream(['Back', ' again.']));
      expect(await relay.say('Hello?')).toBe(
        'Sorry, I am having trouble right now. Someone from our team will get back to you soon.',
      );
      expect(await relay.say('Still there?')).toBe('Back again.');
      const said = await until(
        () => voiceMessages(acme, id),
        (ms) => ms.length >= 5,
      );
      expect(said.map((m) => m.direction)).toEqual(['outbound', 'inbound', 'outbound', 'inbound', 'outbound']);
      relay.close();
    });

    it('a relay session for a call that does not exist is closed at setup', async () => {
      const phone = uniquePhone();
      const id = await createLead(acme, { phone, customerProfile: 'sales' });
      const placed = await placeCall(acme, fake, id);
      const other = placed.relayUrl.replace(/call=[^&]+/, 'call=00000000-0000-7000-8000-000000000000');
      const relay = await connectRelay(ctx().url, other, TOKEN);
      relay.setup(placed.sid);
      expect(await relay.closed).toBe(1000);
      expect(relay.received).toEqual([]);
    });

    it('tool calls on a call act like in a text conversation (tag, hot)', async () => {
      const { id, phone, relay } = await connected();
      model.program(
        phone,
        stream(['Noted', '.'], {
          calls: [call('markHot'), call('tagLead', { name: 'mover', condition: 'moving soon' })],
        }),
      );
      await relay.say('I am ready to buy');
      const l = await until(
        async () => (await acme.get(`/leads/${id}`)).body,
        (b) => b.isHot === true,
      );
      expect(l.tags.map((t: { name: string }) => t.name)).toContain('mover');
      relay.close();
    });
  },
  { ...FAST_WEBHOOKS, ...twilioEnv(fake), ...openAiAgentEnv(model) },
);
