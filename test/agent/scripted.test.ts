import { expect, it } from 'vitest';
import { outboxFor } from '../support/events.js';
import { createLead, describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { eventually } from '../support/webhooks.js';
import { ALWAYS_OPEN, FAST_AGENT_ENV, aiMessages, inbound, lead, messages, say, turns } from './helpers.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

const Q1 = 'How big is your roof, roughly?';
const Q2 = 'When would you like the panels installed?';
const OPENING = 'Hi {{firstName}}, thanks for asking about solar panels!';

let profileCounter = 0;
async function solarProfile(client: Client, extra: Record<string, unknown> = {}): Promise<string> {
  profileCounter += 1;
  const name = `solar-${profileCounter}`;
  const res = await client.post('/customerProfiles', {
    name,
    instructions: 'Sell solar panels.',
    openingMessage: OPENING,
    questions: [Q1, Q2],
    ...extra,
  });
  expect(res.status).toBe(201);
  return name;
}

async function aiJobsFor(ts: TestServer, messageId: string) {
  return ts.server.store.db
    .selectFrom('jobs')
    .selectAll()
    .where('name', '=', 'ai.turn')
    .where('payload', 'like', `%${messageId}%`)
    .execute();
}

const lastAi = async (client: Client, id: string) => aiMessages(await messages(client, id)).at(-1);

describeEachDialect(
  'the scripted agent',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('runs a whole conversation: opening, questions, qualification, hot, a commanded follow-up, STOP, START, AI off, clearMemory', async () => {
      const ts = ctx();
      const c = ts.acme;
      expect((await c.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
      const profile = await solarProfile(c);
      const phone = uniquePhone();
      const id = await createLead(c, { phone, firstName: 'Maya', customerProfile: profile });

      // Lead created with the AI on: the opening message goes out through the gate.
      await ts.runDue();
      let ms = await messages(c, id);
      expect(ms).toHaveLength(1);
      expect(ms[0]).toMatchObject({
        content: { text: 'Hi Maya, thanks for asking about solar panels!' },
        owner: 'user',
        isAiGenerated: true,
        direction: 'outbound',
        channel: 'sms',
        status: 'sent',
      });

      // Each reply gets the next question, in order.
      expect((await say(c, id, phone, 'Hello!', ts.runDue)).turn).toMatchObject({
        status: 'done',
        actions: ['reply'],
        error: null,
      });
      // A send paced to its number's next slot is not due yet when the step returns: step until it has gone.
      await eventually('the reply sent', async () => {
        await ts.runDue();
        return !['scheduled', 'sending', 'queued'].includes((await lastAi(c, id))?.status ?? 'queued');
      });
      expect(await lastAi(c, id)).toMatchObject({
        status: 'sent',
        content: { text: Q1 },
        owner: 'user',
        isAiGenerated: true,
        channel: 'sms',
      });
      await say(c, id, phone, 'About 120 square meters', ts.runDue);
      expect((await lastAi(c, id))!.content.text).toBe(Q2);

      // All answered: qualified, tagged, summarised, and a closing line.
      const qualifying = await say(c, id, phone, 'Next month', ts.runDue);
      expect(qualifying.turn).toMatchObject({
        status: 'done',
        actions: ['markQualified', 'tagLead', 'updateSummary', 'reply'],
      });
      let l = await lead(c, id);
      expect(l.isQualified).toBe(true);
      expect(l.isHot).toBe(false);
      expect(l.tags).toEqual([
        { id: expect.any(String), name: 'qualified', condition: 'answered all profile questions' },
      ]);
      expect(l.summary).toBe(`Q: ${Q1}\nA: About 120 square meters\nQ: ${Q2}\nA: Next month`);
      const tagged = await outboxFor(ts, id, 'leadTagged');
      // docs.apten.ai/webhooks/lead-tagged: the tag by name; hasReplied and isQualified are tags too.
      expect(tagged.map((e) => e.data)).toEqual([
        { leadId: id, externalLeadId: null, phone, channel: 'sms', tag: 'hasReplied' },
        { leadId: id, externalLeadId: null, phone, channel: 'sms', tag: 'isQualified' },
        {
          leadId: id,
          externalLeadId: null,
          phone,
          channel: 'sms',
          tag: 'qualified',
          tagId: l.tags[0]!.id,
          condition: 'answered all profile questions',
        },
      ]);
      expect((await lastAi(c, id))!.content.text).toMatch(/^Thank you, Maya!/);

      // Buying words make the lead hot (no further question: the script is done).
      expect((await say(c, id, phone, "Great, I'm ready to buy", ts.runDue)).turn).toMatchObject({
        status: 'done',
        actions: ['markHot', 'tagLead'],
      });
      l = await lead(c, id);
      expect(l.isHot).toBe(true);
      expect(l.tags.map((t: { name: string }) => t.name)).toEqual(['qualified', 'hot']);
      expect((await outboxFor(ts, id, 'leadTagged')).map((e) => e.data.tag)).toEqual([
        'hasReplied',
        'isQualified',
        'qualified',
        'isHot',
        'hot',
      ]);

      // A pending command is honoured on the next turn, then consumed.
      expect(
        (await c.post(`/leads/${id}/addContext`, { command: 'follow up in 1 minutes: Any questions about the quote?' }))
          .status,
      ).toBe(200);
      const before = ts.clock.now().getTime();
      expect((await say(c, id, phone, 'ok thanks', ts.runDue)).turn).toMatchObject({
        status: 'done',
        actions: ['scheduleFollowUp'],
      });
      const followUp = (await messages(c, id)).find((m) => m.content.text === 'Any questions about the quote?')!;
      expect(followUp).toMatchObject({ status: 'scheduled', isAiGenerated: true, owner: 'user', channel: 'sms' });
      const due = Date.parse(followUp.scheduledTime!);
      expect(due).toBeGreaterThanOrEqual(before + 60_000 - 1000);
      expect(due).toBeLessThanOrEqual(ts.clock.now().getTime() + 60_000 + 1000);
      const notes = (await c.get(`/leads/${id}/context`)).body.notes;
      expect(notes).toMatchObject([{ kind: 'command', consumedAt: expect.any(String) }]);

      // STOP: unsubscribed, the confirmation only, and no AI turn.
      const turnsBefore = (await turns(c, id)).length;
      const aiBefore = aiMessages(await messages(c, id)).length;
      const stop = await inbound(c, phone, 'STOP');
      expect(stop.action).toBe('opted_out');
      l = await lead(c, id);
      expect(l.subscriptions.sms).toBe('unsubscribed');
      await ts.runDue();
      expect(
        (await messages(c, id))
          .filter((x) => x.content.text.includes('You have been unsubscribed'))
          .map((x) => x.status),
      ).toEqual(['sent']);
      expect(await aiJobsFor(ts, stop.messageId)).toHaveLength(0);
      expect(await turns(c, id)).toHaveLength(turnsBefore);
      expect(aiMessages(await messages(c, id))).toHaveLength(aiBefore);

      // START: resubscribed, and again no AI turn.
      const start = await inbound(c, phone, 'START');
      expect(start.action).toBe('resubscribed');
      expect((await lead(c, id)).subscriptions.sms).toBe('subscribed');
      expect(await aiJobsFor(ts, start.messageId)).toHaveLength(0);

      // AI off: a reply is stored but triggers no turn.
      expect((await c.post(`/leads/${id}/turnOffAi`)).status).toBe(200);
      const quiet = await inbound(c, phone, 'Are you still there?');
      expect(quiet.action).toBe('conversation');
      await ts.runDue();
      expect(await aiJobsFor(ts, quiet.messageId)).toHaveLength(0);
      expect(await turns(c, id)).toHaveLength(turnsBefore);
      expect(aiMessages(await messages(c, id))).toHaveLength(aiBefore);

      // clearMemory: the questions start over.
      expect((await c.post(`/leads/${id}/turnOnAi`)).status).toBe(200);
      expect((await c.post(`/leads/${id}/switchCustomerProfile`, { profile, clearMemory: true })).status).toBe(200);
      expect((await say(c, id, phone, 'Hi again', ts.runDue)).turn).toMatchObject({
        status: 'done',
        actions: ['reply'],
      });
      expect((await lastAi(c, id))!.content.text).toBe(Q1);
    });

    it('sends no opening message when the profile has none or the AI starts off, and says nothing without questions', async () => {
      const ts = ctx();
      const c = ts.acme;
      await c.patch('/settings', ALWAYS_OPEN);
      const phone = uniquePhone();
      const plain = await createLead(c, { phone });
      const off = await createLead(c, { customerProfile: await solarProfile(c), isAiOn: false });
      await ts.runDue();
      expect(await messages(c, plain)).toHaveLength(0);
      expect(await messages(c, off)).toHaveLength(0);
      // The default profile has no questions: the turn runs and decides nothing.
      expect((await say(c, plain, phone, 'Hi, I am interested', ts.runDue)).turn).toMatchObject({
        status: 'done',
        actions: ['markHot', 'tagLead'],
      });
      expect(aiMessages(await messages(c, plain))).toHaveLength(0);
    });

    it('opens by email when the lead has no phone', async () => {
      const ts = ctx();
      const c = ts.acme;
      await c.patch('/settings', ALWAYS_OPEN);
      const email = `maya${Math.random().toString(36).slice(2, 8)}@example.com`;
      const id = await createLead(c, {
        phone: undefined,
        email,
        firstName: 'Maya',
        customerProfile: await solarProfile(c),
      });
      await ts.runDue();
      const [m] = await messages(c, id);
      expect(m).toMatchObject({
        channel: 'email',
        isAiGenerated: true,
        content: { text: 'Hi Maya, thanks for asking about solar panels!' },
      });
    });

    it('honours "send message:" commands, ignores commands it does not understand, and consumes both', async () => {
      const ts = ctx();
      const c = ts.acme;
      await c.patch('/settings', ALWAYS_OPEN);
      const phone = uniquePhone();
      const id = await createLead(c, { phone, customerProfile: await solarProfile(c) });
      await c.post(`/leads/${id}/addContext`, {
        context: 'Owns a house',
        command: 'Send message: Our engineer can visit on Friday.',
      });
      await c.post(`/leads/${id}/addContext`, { command: 'be extra charming' });
      expect((await say(c, id, phone, 'hello', ts.runDue)).turn).toMatchObject({ status: 'done', actions: ['reply'] });
      expect((await lastAi(c, id))!.content.text).toBe('Our engineer can visit on Friday.');
      const notes = (await c.get(`/leads/${id}/context`)).body.notes as { kind: string; consumedAt: string | null }[];
      expect(notes.filter((n) => n.kind === 'command').every((n) => n.consumedAt !== null)).toBe(true);
      expect(notes.find((n) => n.kind === 'context')!.consumedAt).toBeNull();
      // The command took that turn; the questions resume on the next one.
      await say(c, id, phone, 'great', ts.runDue);
      expect((await lastAi(c, id))!.content.text).toBe(Q1);
    });

    it('does not take "not interested" for a hot lead', async () => {
      const ts = ctx();
      const c = ts.acme;
      const phone = uniquePhone();
      const id = await createLead(c, { phone });
      expect((await say(c, id, phone, "Sorry, I'm not really interested", ts.runDue)).turn).toMatchObject({
        status: 'done',
        actions: [],
      });
      expect((await lead(c, id)).isHot).toBe(false);
    });

    it('lists turns only for leads of the caller, with leads:read', async () => {
      const ts = ctx();
      const id = await createLead(ts.acme);
      expect((await ts.acme.get(`/leads/${id}/agentTurns`)).body).toEqual({ turns: [], nextToken: null });
      const other = await ts.beta.get(`/leads/${id}/agentTurns`);
      expect(other.status).toBe(404);
      expect(other.body.message).toBe(`Resource not found: Lead with id ${id}`);
      const writer = await ts.clientWithScopes(['leads:write']);
      expect((await writer.get(`/leads/${id}/agentTurns`)).status).toBe(403);
      const reader = await ts.clientWithScopes(['leads:read']);
      expect((await reader.get(`/leads/${id}/agentTurns`)).status).toBe(200);
    });
  },
  FAST_AGENT_ENV,
);
