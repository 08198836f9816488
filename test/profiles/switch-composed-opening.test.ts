import { afterAll, expect, it } from 'vitest';
import {
  ALWAYS_OPEN,
  FAST_AGENT_ENV,
  aiMessages,
  openAiAgentEnv,
  messages,
  say,
  stepThroughRetries,
  until,
  type MessageView,
} from '../agent/helpers.js';
import { call, startFakeOpenAi, tools } from '../support/fake-openai.js';
import { createLead, describeEachDialect, uniquePhone, type TestServer } from '../support/harness.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

const OK = 'Switched profile successfully.';

async function openingsOf(ts: TestServer, leadId: string) {
  return ts.server.store.db
    .selectFrom('lead_openings')
    .selectAll()
    .where('lead_id', '=', leadId)
    .orderBy('id')
    .execute();
}

/** Runs the worker's step, then answers the lead's AI-written outbound message in a state `ok` accepts (there must be one). */
async function aiMessage(
  ts: TestServer,
  leadId: string,
  ok: (m: MessageView) => boolean = () => true,
): Promise<MessageView> {
  await ts.runDue();
  const found = aiMessages(await messages(ts.acme, leadId)).find(ok);
  expect(found, 'an AI-written message in the state wanted').toBeDefined();
  return found!;
}

describeEachDialect(
  'switchCustomerProfile with sendMessage to a profile without an opening template',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('a client switching a lead to `default` with sendMessage: true gets 200, and the agent writes and sends the opening', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const leadId = await createLead(ts.acme, { firstName: 'Ann' });
      // The exact request of the client that failed with 400 before: `default` has no opening template.
      const res = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        sendMessage: true,
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: OK,
        sendMessage: true,
        messageDelayHours: 0,
        messageDelayMins: 0,
        opening: { status: 'composing', messageId: null, reason: null },
      });
      const sent = await aiMessage(ts, leadId, (m) => m.status === 'sent');
      expect(sent).toMatchObject({
        content: { text: 'Hi Ann! Thanks for your interest. How can we help you today?' },
        owner: 'user',
        isAiGenerated: true,
        channel: 'sms',
        direction: 'outbound',
      });
      const [opening] = await openingsOf(ts, leadId);
      expect(opening).toMatchObject({
        profile: 'default',
        kind: 'composed',
        status: 'scheduled',
        message_id: sent.id,
        error: null,
      });
    });

    it('does not send a second opening when the lead is switched to the same profile again, before or after it is written', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const leadId = await createLead(ts.acme, { firstName: 'Bo' });
      const first = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        sendMessage: true,
      });
      // Straight away (the first may still be being written), then again once it is out.
      const again = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        sendMessage: true,
      });
      expect(first.body.opening!.status).toBe('composing');
      expect(again.status).toBe(200);
      expect(again.body.opening).toMatchObject({
        status: 'not_sent',
        reason: 'the opening of customer profile default was already sent to this lead',
      });
      const sent = await aiMessage(ts, leadId, (m) => m.status === 'sent');
      const third = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        sendMessage: true,
      });
      expect(third.body.opening).toEqual({
        status: 'not_sent',
        messageId: sent.id,
        reason: 'the opening of customer profile default was already sent to this lead',
      });
      await ts.runDue();
      expect(aiMessages(await messages(ts.acme, leadId))).toHaveLength(1);
      expect(await openingsOf(ts, leadId)).toHaveLength(1);
    });

    it('concurrent switches to the same profile make one opening', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      await ts.acme.post('/customerProfiles', { name: 'racy', openingMessage: 'Hi {{firstName}} from racy' });
      const leadId = await createLead(ts.acme, { firstName: 'Rae' });
      const all = await Promise.all(
        Array.from({ length: 6 }, () =>
          ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'racy', sendMessage: true }),
        ),
      );
      expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
      expect(all.filter((r) => r.body.opening!.status === 'scheduled')).toHaveLength(1);
      expect(all.filter((r) => r.body.opening!.status === 'not_sent')).toHaveLength(5);
      expect(await openingsOf(ts, leadId)).toHaveLength(1);
      expect((await messages(ts.acme, leadId)).map((m) => m.content.text)).toEqual(['Hi Rae from racy']);
    });

    it('a switch to another profile and back is a new opening', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      await ts.acme.post('/customerProfiles', {
        name: 'renewals-plain',
        questions: ['Which plan are you on?', 'When does it end?'],
      });
      const leadId = await createLead(ts.acme, { firstName: 'Cy' });
      await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'default', sendMessage: true });
      await aiMessage(ts, leadId, (m) => m.status === 'sent');
      await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'renewals-plain', sendMessage: true });
      // The scripted agent greets and asks the profile's first question.
      const second = await aiMessage(ts, leadId, (m) => m.content.text.includes('Which plan'));
      expect(second.content.text).toBe('Hi Cy! Which plan are you on?');
      expect((await openingsOf(ts, leadId)).map((o) => o.profile)).toEqual(['default', 'renewals-plain']);
    });

    it('the composed opening waits for the delay and goes through the gate like any send', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const leadId = await createLead(ts.acme, { firstName: 'Di' });
      const before = ts.clock.now().getTime();
      await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        sendMessage: true,
        messageDelayMins: 30,
      });
      const scheduled = await aiMessage(ts, leadId);
      expect(scheduled.status).toBe('scheduled');
      const due = new Date(scheduled.scheduledTime!).getTime() - before;
      expect(due).toBeGreaterThanOrEqual(30 * 60_000 - 1000);
      expect(due).toBeLessThan(30 * 60_000 + 10_000);

      // An unsubscribed lead: the opening is written, then blocked by the gate with its reason, never sent.
      const out = await createLead(ts.acme, { firstName: 'Ed' });
      expect((await ts.acme.post(`/leads/${out}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
      await ts.acme.post(`/leads/${out}/switchCustomerProfile`, { profile: 'default', sendMessage: true });
      const blocked = await aiMessage(ts, out, (m) => m.status === 'blocked');
      expect(blocked).toMatchObject({ statusCode: 'OPTED_OUT', statusReason: 'lead is unsubscribed from sms' });
    });

    it('a scripted opening that asks the first question lets the questions carry on from the second', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      await ts.acme.post('/customerProfiles', {
        name: 'survey',
        questions: ['What is your budget?', 'When would you like to start?'],
      });
      const phone = uniquePhone();
      const leadId = await createLead(ts.acme, { firstName: 'Flo', phone });
      await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'survey', sendMessage: true });
      await aiMessage(ts, leadId, (m) => m.status === 'sent');
      const { turn } = await say(ts.acme, leadId, phone, 'About 5000');
      expect(turn?.status).toBe('done');
      const texts = aiMessages(await messages(ts.acme, leadId)).map((m) => m.content.text);
      expect(texts).toEqual(['Hi Flo! What is your budget?', 'When would you like to start?']);
    });
  },
  FAST_AGENT_ENV,
);

const fake = await startFakeOpenAi('sk-test-parley-opening-0123456789');
afterAll(() => fake.close());

describeEachDialect(
  'the opening written by an OpenAI-compatible model',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it("asks the model with the profile's instructions and the lead's context, and sends its reply", async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      await ts.acme.post('/customerProfiles', {
        name: 'solar',
        instructions: 'You sell rooftop solar panels for Sunny Co.',
      });
      const phone = uniquePhone();
      const leadId = await createLead(ts.acme, { firstName: 'Gus', phone, additionalInfo: { roof: 'south-facing' } });
      await ts.acme.post(`/leads/${leadId}/addContext`, {
        context: 'Asked about financing at the fair',
        command: 'follow up in 2 days',
      });
      fake.program(
        phone,
        tools(
          call('reply', { text: 'Hi Gus, Sunny Co here: happy to talk financing for your south-facing roof!' }),
          call('markHot'),
        ),
      );
      await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'solar', sendMessage: true });
      const sent = await aiMessage(ts, leadId, (m) => m.status === 'sent');
      expect(sent.content.text).toBe('Hi Gus, Sunny Co here: happy to talk financing for your south-facing roof!');
      const [request] = fake.requestsFor(phone);
      const system: string = request!.body.messages[0].content;
      expect(system).toContain('You sell rooftop solar panels for Sunny Co.');
      expect(system).toContain('First name: Gus');
      expect(system).toContain('south-facing');
      expect(system).toContain('Asked about financing at the fair');
      expect(system).toContain('## Task: the opening message');
      // A pending command is not the opening's business: it is not shown, and stays pending for the next turn.
      expect(system).not.toContain('follow up in 2 days');
      const notes = await ts.server.store.db
        .selectFrom('lead_notes')
        .select(['kind', 'consumed_at'])
        .where('lead_id', '=', leadId)
        .where('kind', '=', 'command')
        .execute();
      expect(notes).toEqual([{ kind: 'command', consumed_at: null }]);
      // An opening only speaks: the markHot it also answered is not applied.
      expect((await ts.acme.get(`/leads/${leadId}`)).body.isHot).toBe(false);
    });

    it('an opening whose lead moved to another profile while the model was writing is skipped, not sent', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      await ts.acme.post('/customerProfiles', { name: 'elsewhere' });
      const phone = uniquePhone();
      const leadId = await createLead(ts.acme, { firstName: 'Ike', phone });
      fake.program(phone, { kind: 'tools', calls: [call('reply', { text: 'Too late' })], delayMs: 700 });
      await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'default', sendMessage: true });
      // A race on purpose: the loop (woken by the switch) has the model's answer in flight when the lead moves.
      await until(
        async () => fake.requestsFor(phone).length,
        (n) => n === 1,
      );
      await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'elsewhere' });
      await ts.runDue(); // waits for the opening the loop has in flight
      const [skipped] = await openingsOf(ts, leadId);
      expect(skipped?.status).toBe('skipped');
      expect(skipped!.error).toBe('the lead was switched to another customer profile before its opening was written');
      await ts.runDue();
      expect(await messages(ts.acme, leadId)).toHaveLength(0);
    });

    it('a model that keeps failing leaves the opening recorded as failed with the reason, and nothing sent', async () => {
      const ts = ctx();
      await ts.acme.patch('/settings', ALWAYS_OPEN);
      const phone = uniquePhone();
      const leadId = await createLead(ts.acme, { firstName: 'Hal', phone });
      fake.program(phone, { kind: 'status', status: 503 });
      const res = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        sendMessage: true,
      });
      expect(res.body.opening!.status).toBe('composing');
      await stepThroughRetries(ts)();
      const [failed] = await openingsOf(ts, leadId);
      expect(failed?.status).toBe('failed');
      expect(failed!.error).toBe('the agent could not write the opening message: model endpoint answered HTTP 503');
      expect(fake.requestsFor(phone).length).toBe(3);
      expect(await messages(ts.acme, leadId)).toHaveLength(0);
      // A failed opening never reached the lead: switching again tries again.
      fake.program(phone, tools(call('reply', { text: 'Hello Hal!' })));
      const retry = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, {
        profile: 'default',
        sendMessage: true,
      });
      expect(retry.body.opening!.status).toBe('composing');
      expect((await aiMessage(ts, leadId, (m) => m.status === 'sent')).content.text).toBe('Hello Hal!');
    });
  },
  openAiAgentEnv(fake),
);
