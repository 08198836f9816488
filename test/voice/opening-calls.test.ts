import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../support/assert.js';
import { LATE_NIGHT, startEachTestInDaytime } from '../support/clock-hours.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { connectRelay } from '../support/fake-relay.js';
import { createLead, describeEachDialect, uniquePhone, type Client } from '../support/harness.js';
import { freshOrg } from '../support/webhooks.js';
import { ALWAYS_OPEN, sendingNumber, TOKEN, twilioEnv, twimlAttr, voiceMessages } from './support.js';

const fake = await startFakeTwilio('ACtest', TOKEN);
afterAll(() => fake.close());

const OPENING = 'Hi {{firstName}}, Acme Movers calling about your move.';
/** Daytime everywhere in the US, the morning after LATE_NIGHT. */
const MORNING = new Date(LATE_NIGHT.getTime() + 12 * 3_600_000);
const spoken = (name: string) => `Hi ${name}, Acme Movers calling about your move.`;

/** The live calls Twilio was asked to place to `phone` (Calls.json with ConversationRelay TwiML). */
const liveCalls = (phone: string) =>
  fake.accepted('Calls', (p) => p.To === phone && (p.Twiml?.includes('<ConversationRelay') ?? false));

describeEachDialect(
  'Openings that are calls: a profile that calls first',
  (ctx) => {
    let acme: Client;
    startEachTestInDaytime(ctx);
    beforeAll(async () => {
      acme = await freshOrg(ctx(), 'callfirst');
      expect((await acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: sendingNumber() })).status).toBe(200);
      expect((await acme.post('/customerProfiles', { name: 'callers', openingMessage: OPENING })).status).toBe(201);
      expect((await acme.post('/customerProfiles', { name: 'texters', openingMessage: OPENING })).status).toBe(201);
      const put = await acme.call('PUT', '/customerProfiles/callers/voice', { callFirst: true, language: 'en-US' });
      expect(put.status).toBe(200);
      expect((await acme.get('/customerProfiles/callers/voice')).body).toEqual({ callFirst: true, language: 'en-US' });
    });

    it("a new lead's opening is a live call: Connect/ConversationRelay with the opening as greeting, no text", async () => {
      const phone = uniquePhone();
      const id = await createLead(acme, { phone, firstName: 'Ann', customerProfile: 'callers' });
      await ctx().runDue();
      const placed = liveCalls(phone);
      expect(placed).toHaveLength(1);
      const twiml = placed[0]!.params.Twiml!;
      expect(twiml).toMatch(/^(<\?xml[^>]*>)?<Response><Connect action="[^"]+"><ConversationRelay /);
      expect(twimlAttr(twiml, 'ConversationRelay', 'welcomeGreeting')).toBe(spoken('Ann'));
      expect(placed[0]!.params).toMatchObject({ MachineDetection: 'DetectMessageEnd', AsyncAmd: 'true' });
      // The opening is the lead's voice message, sent once the call was dialled; it went by no other channel.
      const messages = (await acme.get(`/leads/${id}/messages`)).body.messages as any[];
      expect(messages[0]?.status).toBe('sent');
      expect(messages.map((m) => [m.channel, m.content.text])).toEqual([['voice', spoken('Ann')]]);
      expect(fake.accepted('Messages', (p) => p.To === phone)).toHaveLength(0);
      const calls = (await acme.get(`/leads/${id}/calls`)).body.calls;
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ direction: 'OUTBOUND', providerCallId: placed[0]!.sid });

      // On the call, the greeting is the opening message itself: not stored a second time. The relay's
      // messages are handled by the server's socket, not the worker: a bounded wait for them to be stored.
      const relay = await connectRelay(ctx().url, twimlAttr(twiml, 'ConversationRelay', 'url')!, TOKEN);
      relay.setup(placed[0]!.sid!);
      await relay.say('Sure, go ahead');
      const said = await until(
        () => voiceMessages(acme, id),
        (ms) => ms.length >= 3,
      );
      expect(said.slice(0, 2).map((m) => [m.direction, m.content.text])).toEqual([
        ['outbound', spoken('Ann')],
        ['inbound', 'Sure, go ahead'],
      ]);
      relay.close();
    });

    it('a switch with sendMessage to the profile places the call, once', async () => {
      const phone = uniquePhone();
      const id = await createLead(acme, { phone, firstName: 'Bo', customerProfile: 'texters' });
      await ctx().runDue();
      expect(fake.accepted('Messages', (p) => p.To === phone)).toHaveLength(1);
      const res = await acme.post(`/leads/${id}/switchCustomerProfile`, { profile: 'callers', sendMessage: true });
      expect(res.status).toBe(200);
      expect(res.body.opening).toMatchObject({ status: 'scheduled' });
      await ctx().runDue();
      const placed = liveCalls(phone);
      expect(placed).toHaveLength(1);
      expect(twimlAttr(placed[0]!.params.Twiml!, 'ConversationRelay', 'welcomeGreeting')).toBe(spoken('Bo'));
      const again = await acme.post(`/leads/${id}/switchCustomerProfile`, { profile: 'callers', sendMessage: true });
      expect(again.body.opening).toMatchObject({ status: 'not_sent', messageId: res.body.opening!.messageId });
    });

    it("a profile without a template: the agent writes the opening, and it is the call's greeting", async () => {
      expect(
        (await acme.post('/customerProfiles', { name: 'composed', questions: ['When is your move?'] })).status,
      ).toBe(201);
      expect((await acme.call('PUT', '/customerProfiles/composed/voice', { callFirst: true })).status).toBe(200);
      const phone = uniquePhone();
      const id = await createLead(acme, { phone, customerProfile: 'texters' });
      const res = await acme.post(`/leads/${id}/switchCustomerProfile`, { profile: 'composed', sendMessage: true });
      expect(res.body.opening).toMatchObject({ status: 'composing' });
      await ctx().runDue();
      const placed = liveCalls(phone);
      expect(placed).toHaveLength(1);
      const said = await voiceMessages(acme, id);
      expect(said).toHaveLength(1);
      expect(twimlAttr(placed[0]!.params.Twiml!, 'ConversationRelay', 'welcomeGreeting')).toBe(said[0]!.content.text);
    });

    it('a campaign on a profile that calls first calls each lead, and counts the calls as its sends', async () => {
      const org = await freshOrg(ctx(), 'callcamp');
      expect((await org.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: sendingNumber() })).status).toBe(200);
      expect((await org.post('/customerProfiles', { name: 'dialers', openingMessage: OPENING })).status).toBe(201);
      expect((await org.call('PUT', '/customerProfiles/dialers/voice', { callFirst: true })).status).toBe(200);
      const phones = [uniquePhone(), uniquePhone()];
      for (const phone of phones) await createLead(org, { phone, firstName: 'Cy' });
      const made = await org.post('/campaigns', {
        name: 'Call round',
        filter: {},
        customerProfile: 'dialers',
        dailyCap: 10,
      });
      expect(made.status).toBe(201);
      await ctx().runDue();
      for (const phone of phones) expect(liveCalls(phone)).toHaveLength(1);
      const counts = (await org.get(`/campaigns/${made.body.id}`)).body.counts;
      expect(counts).toMatchObject({ enrolled: 2, sent: 2, messagesSent: 2, blocked: 0 });
    });

    it('an opening call counts once against the frequency cap (by its message)', async () => {
      const org = await freshOrg(ctx(), 'callcap');
      const settings = { ...ALWAYS_OPEN, sendingNumber: sendingNumber(), frequencyCap: { maxAutomatedPerDay: 2 } };
      expect((await org.patch('/settings', settings)).status).toBe(200);
      expect((await org.post('/customerProfiles', { name: 'dialers', openingMessage: OPENING })).status).toBe(201);
      expect((await org.call('PUT', '/customerProfiles/dialers/voice', { callFirst: true })).status).toBe(200);
      const phone = uniquePhone();
      const id = await createLead(org, { phone, customerProfile: 'dialers' });
      await ctx().runDue();
      expect(((await org.get(`/leads/${id}/messages`)).body.messages as any[])[0]?.status).toBe('sent');
      expect((await org.post(`/leads/${id}/call`, {})).body).toMatchObject({ status: 'dialing' });
      expect((await org.post(`/leads/${id}/call`, {})).body).toMatchObject({
        status: 'blocked',
        statusCode: 'FREQUENCY_CAP',
      });
    });

    it('the gate is asked before dialling: a lead opted out of voice is not called, its opening blocked', async () => {
      const phone = uniquePhone();
      const id = await createLead(acme, { phone, customerProfile: 'texters' });
      expect((await acme.post(`/leads/${id}/unsubscribe`, { channels: ['voice'] })).status).toBe(200);
      const res = await acme.post(`/leads/${id}/switchCustomerProfile`, { profile: 'callers', sendMessage: true });
      const messageId = res.body.opening!.messageId as string;
      await ctx().runDue();
      const blocked = ((await acme.get(`/leads/${id}/messages`)).body.messages as any[]).find(
        (m) => m.id === messageId,
      );
      expect(blocked).toMatchObject({ channel: 'voice', statusCode: 'OPTED_OUT' });
      const calls = (await acme.get(`/leads/${id}/calls`)).body.calls;
      expect(calls).toMatchObject([{ status: 'blocked', statusCode: 'OPTED_OUT', providerCallId: null }]);
      expect(liveCalls(phone)).toHaveLength(0);
    });

    it('at night the call waits for the night floor to lift; nothing is dialled before', async () => {
      ctx().clock.set(LATE_NIGHT);
      const phone = uniquePhone();
      const id = await createLead(acme, { phone, customerProfile: 'callers' });
      await ctx().runDue();
      const calls = (await acme.get(`/leads/${id}/calls`)).body.calls;
      expect(calls[0]).toMatchObject({ status: 'waiting', statusCode: 'CONTACT_HOURS', providerCallId: null });
      const message = ((await acme.get(`/leads/${id}/messages`)).body.messages as any[])[0];
      expect(message).toMatchObject({ channel: 'voice', status: 'scheduled', statusCode: 'CONTACT_HOURS' });
      expect(liveCalls(phone)).toHaveLength(0);
      ctx().clock.set(MORNING);
      await ctx().runDue();
      expect(liveCalls(phone)).toHaveLength(1);
    });

    it('a campaign paused before its call was dialled stops the call with its message', async () => {
      const org = await freshOrg(ctx(), 'callpause');
      expect((await org.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: sendingNumber() })).status).toBe(200);
      expect((await org.post('/customerProfiles', { name: 'dialers', openingMessage: OPENING })).status).toBe(201);
      expect((await org.call('PUT', '/customerProfiles/dialers/voice', { callFirst: true })).status).toBe(200);
      ctx().clock.set(LATE_NIGHT);
      const phones = [uniquePhone(), uniquePhone()];
      const ids = [await createLead(org, { phone: phones[0] }), await createLead(org, { phone: phones[1] })];
      // A cap of one keeps the campaign running (the second lead waits for tomorrow), so it can be paused.
      const made = await org.post('/campaigns', {
        name: 'Night round',
        filter: {},
        customerProfile: 'dialers',
        dailyCap: 1,
      });
      await ctx().runDue();
      const waiting = await Promise.all(ids.map(async (id) => (await org.get(`/leads/${id}/calls`)).body.calls));
      expect(waiting.filter((c) => c[0]?.statusCode === 'CONTACT_HOURS')).toHaveLength(1);
      const i = waiting.findIndex((c) => c.length > 0);
      const [id, phone] = [ids[i]!, phones[i]!];
      expect((await org.post(`/campaigns/${made.body.id}/pause`, {})).status).toBe(200);
      ctx().clock.set(MORNING);
      await ctx().runDue();
      const stopped = (await org.get(`/leads/${id}/calls`)).body.calls;
      expect(stopped[0]?.status).toBe('blocked');
      expect(stopped[0]!.statusReason).toMatch(/opening message was blocked/);
      expect(liveCalls(phone)).toHaveLength(0);
    });
  },
  twilioEnv(fake),
);

describeEachDialect('Calling first without Twilio', (ctx) => {
  it('is refused with a clear message and changes nothing', async () => {
    const acme = ctx().acme;
    expect((await acme.post('/customerProfiles', { name: 'nocarrier' })).status).toBe(201);
    const res = await acme.call('PUT', '/customerProfiles/nocarrier/voice', { callFirst: true });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/callFirst needs Twilio/);
    expect((await acme.get('/customerProfiles/nocarrier/voice')).body).toEqual({});
  });
});
