import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../support/assert.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { connectRelay } from '../support/fake-relay.js';
import { createLead, describeEachDialect, uniquePhone, type Client } from '../support/harness.js';
import { ALWAYS_OPEN, sendingNumber, TOKEN, twilioEnv, twimlAttr, voiceMessages } from './support.js';

const fake = await startFakeTwilio('ACtest', TOKEN);
afterAll(() => fake.close());

describeEachDialect(
  'A message sent with channel voice is a live call whose greeting it is',
  (ctx) => {
    let acme: Client;
    startEachTestInDaytime(ctx);
    beforeAll(async () => {
      acme = ctx().acme;
      expect((await acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: sendingNumber() })).status).toBe(200);
      expect(
        (await acme.post('/customerProfiles', { name: 'spoken', questions: ['What is your budget?'] })).status,
      ).toBe(201);
    });

    /** Sends, runs the worker, answers the call Parley placed for it. */
    async function sendAndPlace(leadId: string, message: string, body: Record<string, unknown> = {}) {
      const sent = await acme.post(`/leads/${leadId}/sendMessage`, { message, channel: 'voice', ...body });
      expect(sent.body.id).toBeTypeOf('string');
      expect(sent.status).toBe(200);
      await ctx().runDue();
      return { sent, placed: fake.accepted('Calls', (p) => p.Twiml?.includes(message) ?? false) };
    }

    it('answers as sendMessage does, then places a ConversationRelay call that speaks the message and talks on', async () => {
      const id = await createLead(acme, {
        phone: uniquePhone(),
        firstName: 'Vic',
        customerProfile: 'spoken',
        isAiOn: true,
      });
      const text = `Hi Vic, this is Ana from shop ${id}.`;
      const { sent, placed } = await sendAndPlace(id, text);
      expect(sent.body).toMatchObject({
        message: 'Message sent successfully.',
        channel: 'voice',
        status: 'scheduled',
        statusCode: null,
      });
      expect(placed).toHaveLength(1);
      const twiml = placed[0]!.params.Twiml!;
      expect(twiml).toContain('<Connect action=');
      expect(twimlAttr(twiml, 'ConversationRelay', 'welcomeGreeting')).toBe(text);
      expect(twiml).not.toContain('<Gather');
      expect(placed[0]!.params.AsyncAmd).toBe('true');
      const msgs = await acme.get(`/leads/${id}/messages`);
      const message = msgs.body.messages.find((m) => m.id === sent.body.id)!;
      expect(message).toMatchObject({ channel: 'voice', status: 'sent', isAiGenerated: false });

      const relay = await connectRelay(ctx().url, twimlAttr(twiml, 'ConversationRelay', 'url')!, TOKEN);
      relay.setup(placed[0]!.sid!);
      expect(await relay.say('Oh hi, yes?')).toBe('What is your budget? ');
      // The message is the call's greeting: stored once, then the call's turns.
      const said = await until(
        () => voiceMessages(acme, id),
        (ms) => ms.length >= 3,
      );
      expect(said.map((m) => [m.direction, m.content.text])).toEqual([
        ['outbound', text],
        ['inbound', 'Oh hi, yes?'],
        ['outbound', 'What is your budget?'],
      ]);
      relay.close();
    });

    it("a voice message's message.send job (a queue from a version that sent voice as a recorded call) is placed as a live call", async () => {
      const id = await createLead(acme, { phone: uniquePhone(), firstName: 'Val', customerProfile: 'spoken' });
      const text = `Hi Val, a call from an old queue ${id}.`;
      // Due in an hour: no worker takes it before it is renamed.
      const scheduledTime = new Date(ctx().clock.now().getTime() + 3_600_000).toISOString();
      const sent = await acme.post(`/leads/${id}/sendMessage`, { message: text, channel: 'voice', scheduledTime });
      expect(sent.status).toBe(200);
      // The job as such a version wrote it: a send of the recorded message.
      const renamed = await ctx()
        .server.store.db.updateTable('jobs')
        .set({ name: 'message.send' })
        .where('name', '=', 'message.call')
        .where('payload', 'like', `%${sent.body.id}%`)
        .executeTakeFirst();
      expect(Number(renamed.numUpdatedRows)).toBe(1);
      ctx().clock.advance(3_600_000);
      await ctx().runDue();
      const placed = fake.accepted('Calls', (p) => p.Twiml?.includes(text) ?? false);
      expect(placed).toHaveLength(1);
      expect(twimlAttr(placed[0]!.params.Twiml!, 'ConversationRelay', 'welcomeGreeting')).toBe(text);
    });

    it('reaches a lead whose AI is off (a person sent it): the lead is heard once, thanked, and the call ends', async () => {
      const id = await createLead(acme, { phone: uniquePhone(), customerProfile: 'spoken', isAiOn: false });
      const text = `This is Ana, calling about your order ${id}.`;
      const { sent, placed } = await sendAndPlace(id, text, { sendWhenOff: true });
      expect(sent.body.status).toBe('scheduled');
      expect(placed).toHaveLength(1);
      const relay = await connectRelay(
        ctx().url,
        twimlAttr(placed[0]!.params.Twiml!, 'ConversationRelay', 'url')!,
        TOKEN,
      );
      relay.setup(placed[0]!.sid!);
      expect(await relay.say('Please call me back tomorrow')).toBe(
        'Thank you. Someone from our team will follow up with you soon.',
      );
      const end = await relay.waitFor((m) => m.type === 'end');
      expect(JSON.parse(end.handoffData!)).toEqual({ reasonCode: 'completed' });
      const said = await until(
        () => voiceMessages(acme, id),
        (ms) => ms.length >= 3,
      );
      expect(said.map((m) => [m.direction, m.content.text])).toEqual([
        ['outbound', text],
        ['inbound', 'Please call me back tomorrow'],
        ['outbound', 'Thank you. Someone from our team will follow up with you soon.'],
      ]);
    });

    it("the agent's answer to the lead's voice message is a live call whose greeting is the answer", async () => {
      const phone = uniquePhone();
      const id = await createLead(acme, { phone, customerProfile: 'spoken', isAiOn: true });
      // What the lead said on a call, reported through the API: the agent's turn answers on the voice channel.
      const heard = await acme.post('/inbound', { channel: 'voice', from: phone, text: 'Hello, who is this?' });
      expect(heard.status).toBe(200);
      await ctx().runDue();
      const placed = fake.accepted('Calls', (p) => p.To === phone);
      expect(placed).toHaveLength(1);
      const twiml = placed[0]!.params.Twiml!;
      expect(twiml).toMatch(/^<Response><Connect action="[^"]+"><ConversationRelay /);
      expect(twiml).not.toContain('<Gather');
      expect(twimlAttr(twiml, 'ConversationRelay', 'welcomeGreeting')).toBe('What is your budget?');
      expect(placed[0]!.params.AsyncAmd).toBe('true');
      const reply = (await voiceMessages(acme, id)).find((m) => m.direction === 'outbound')!;
      expect(reply).toMatchObject({ content: { text: 'What is your budget?' }, isAiGenerated: true });
      const calls = await acme.get(`/leads/${id}/calls`);
      expect(calls.body.calls).toHaveLength(1);
      expect(calls.body.calls[0]).toMatchObject({ direction: 'OUTBOUND', providerCallId: placed[0]!.sid });
    });

    it('the gate still judges it when it is sent: a lead opted out of voice is not called', async () => {
      const id = await createLead(acme, { phone: uniquePhone(), customerProfile: 'spoken', isAiOn: true });
      expect((await acme.post(`/leads/${id}/unsubscribe`, { channels: ['voice'] })).status).toBe(200);
      const { sent, placed } = await sendAndPlace(id, `A call nobody should get ${id}.`);
      expect(sent.body).toMatchObject({ status: 'blocked', statusCode: 'OPTED_OUT' });
      expect(placed).toHaveLength(0);
    });

    it("is a person's message: the frequency cap on automated contacts does not hold it back", async () => {
      expect((await acme.patch('/settings', { frequencyCap: { maxAutomatedPerDay: 1 } })).status).toBe(200);
      try {
        const id = await createLead(acme, { phone: uniquePhone(), customerProfile: 'spoken', isAiOn: true });
        // The agent's call uses the lead's one automated contact of the day.
        expect((await acme.post(`/leads/${id}/call`)).body.status).toBe('dialing');
        expect((await acme.post(`/leads/${id}/call`)).body).toMatchObject({
          status: 'blocked',
          statusCode: 'FREQUENCY_CAP',
        });
        const { sent, placed } = await sendAndPlace(id, `A person calls ${id}`);
        expect(sent.body.status).toBe('scheduled');
        expect(placed).toHaveLength(1);
      } finally {
        expect((await acme.patch('/settings', { frequencyCap: null })).status).toBe(200);
      }
    });

    it('an opt-out between the send and its time stops the call with its message', async () => {
      const id = await createLead(acme, { phone: uniquePhone(), customerProfile: 'spoken', isAiOn: true });
      const later = new Date(ctx().clock.now().getTime() + 60 * 60_000).toISOString();
      const sent = await acme.post(`/leads/${id}/sendMessage`, {
        message: `A call for later ${id}`,
        channel: 'voice',
        scheduledTime: later,
      });
      expect(sent.body.status).toBe('scheduled');
      expect((await acme.post(`/leads/${id}/unsubscribe`, { channels: ['voice'] })).status).toBe(200);
      ctx().clock.set(new Date(later));
      await ctx().runDue();
      expect(fake.accepted('Calls', (p) => p.Twiml?.includes(`A call for later ${id}`) ?? false)).toHaveLength(0);
      const m = (await acme.get(`/leads/${id}/messages`)).body.messages.find((x) => x.id === sent.body.id)!;
      expect(m.status).toBe('blocked');
    });
  },
  twilioEnv(fake),
);
