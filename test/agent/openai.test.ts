import { afterAll, expect, it } from 'vitest';
import { outboxFor } from '../support/events.js';
import { call, startFakeOpenAi, tools, type FakeBehaviour } from '../support/fake-openai.js';
import { createLead, describeEachDialect, uniquePhone, type TestServer } from '../support/harness.js';
import {
  ALWAYS_OPEN,
  aiMessages,
  openAiAgentEnv,
  finished,
  inbound,
  lead,
  messages,
  say,
  turns,
  stepThroughRetries,
} from './helpers.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

const fake = await startFakeOpenAi('sk-test-parley-0123456789');
afterAll(() => fake.close());

const ENV = openAiAgentEnv(fake);

const TOOL_NAMES = [
  'handOff',
  'markHot',
  'markQualified',
  'notify',
  'optOut',
  'reply',
  'scheduleFollowUp',
  'tagLead',
  'updateSummary',
];

async function newLead(ts: TestServer, fields: Record<string, unknown> = {}) {
  await ts.acme.patch('/settings', ALWAYS_OPEN);
  const phone = uniquePhone();
  const id = await createLead(ts.acme, { phone, ...fields });
  return { id, phone };
}

/** A failed turn: nothing sent, nothing changed, the lead's message kept. */
async function expectFailedTurn(ts: TestServer, id: string, phone: string, text: string, error: RegExp) {
  const c = ts.acme;
  const { messageId, turn } = await say(c, id, phone, text, stepThroughRetries(ts));
  expect(turn).toMatchObject({ status: 'failed', actions: [] });
  expect(turn!.error).toMatch(error);
  await ts.runDue();
  const ms = await messages(c, id);
  expect(aiMessages(ms)).toHaveLength(0);
  expect(ms.filter((m) => m.direction === 'outbound')).toHaveLength(0);
  expect(ms.find((m) => m.id === messageId)).toMatchObject({ direction: 'inbound', owner: 'lead', content: { text } });
  const l = await lead(c, id);
  expect(l).toMatchObject({ tags: [], isHot: false, isQualified: false, summary: null, isAiOn: true });
  return messageId;
}

describeEachDialect(
  'the OpenAI-compatible agent',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('sends the instructions, lead fields, additionalInfo, context notes, the pending command and only the conversation since clearMemory', async () => {
      const ts = ctx();
      const c = ts.acme;
      const profile = `roofing-${Math.random().toString(36).slice(2, 8)}`;
      await c.post('/customerProfiles', {
        name: profile,
        instructions: 'You are Sunny from Acme Solar. Never promise prices.',
      });
      const email = `olga${Math.random().toString(36).slice(2, 8)}@example.com`;
      const { id, phone } = await newLead(ts, {
        firstName: 'Olga',
        lastName: 'Berg',
        email,
        customerProfile: profile,
        additionalInfo: { budget: '20k', roof: 'tiles' },
      });

      expect((await say(c, id, phone, 'an old message before the switch', ts.runDue)).turn).toMatchObject({
        status: 'done',
        actions: [],
      });
      await c.post(`/leads/${id}/addContext`, {
        context: 'Prefers calls in the evening',
        command: 'Ask whether they own the house',
      });
      await c.post(`/leads/${id}/switchCustomerProfile`, { profile, clearMemory: true });
      expect((await c.post(`/leads/${id}/sendMessage`, { message: 'Hello from a human colleague' })).status).toBe(200);
      await ts.runDue();
      expect(
        (await messages(c, id)).filter((m) => m.content.text === 'Hello from a human colleague').map((m) => m.status),
      ).toEqual(['sent']);
      expect((await say(c, id, phone, 'a new message after the switch', ts.runDue)).turn).toMatchObject({
        status: 'done',
      });

      const [first, second] = fake.requestsFor(phone);
      expect(fake.requestsFor(phone)).toHaveLength(2);
      expect(second!.path).toBe('/v1/chat/completions');
      expect(second!.headers.authorization).toBe(`Bearer ${fake.key}`);
      expect(second!.authorized).toBe(true);
      const body = second!.body;
      expect(body.model).toBe('fake-model-1');
      expect(body.tool_choice).toBe('auto');
      expect(body.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual(TOOL_NAMES);
      for (const t of body.tools)
        expect(t).toMatchObject({
          type: 'function',
          function: { description: expect.any(String), parameters: { type: 'object' } },
        });
      const reply = body.tools.find((t: { function: { name: string } }) => t.function.name === 'reply').function
        .parameters;
      expect(reply).toMatchObject({
        required: ['text'],
        additionalProperties: false,
        properties: { text: { type: 'string', minLength: 1 } },
      });

      const [system, ...rest] = body.messages as { role: string; content: string }[];
      expect(system!.role).toBe('system');
      for (const part of [
        'You are Sunny from Acme Solar. Never promise prices.',
        'Olga',
        'Berg',
        phone,
        email,
        '"budget":"20k"',
        '"roof":"tiles"',
        'Prefers calls in the evening',
        'Ask whether they own the house',
      ]) {
        expect(system!.content).toContain(part);
      }
      expect(rest).toEqual([
        { role: 'assistant', content: 'Hello from a human colleague' },
        { role: 'user', content: 'a new message after the switch' },
      ]);
      // The first turn saw its own conversation, and no command yet.
      expect(first!.body.messages.slice(1)).toEqual([{ role: 'user', content: 'an old message before the switch' }]);
      expect(first!.body.messages[0].content).not.toContain('Ask whether they own the house');
      const notes = (await c.get(`/leads/${id}/context`)).body.notes as { kind: string; consumedAt: string | null }[];
      expect(notes.find((n) => n.kind === 'command')!.consumedAt).not.toBeNull();
    });

    it('applies reply, tagLead, markHot, markQualified, updateSummary and scheduleFollowUp, with their events', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id, phone } = await newLead(ts, {
        firstName: 'Olga',
        externalLeadId: `crm-${Math.random().toString(36).slice(2, 8)}`,
      });
      fake.program(
        phone,
        tools(
          call('reply', { text: 'Happy to help, Olga!' }),
          call('tagLead', { name: 'solar', condition: 'asked about panels' }),
          call('markHot'),
          call('markQualified'),
          call('updateSummary', { summary: 'Wants panels on a tiled roof.' }),
          call('scheduleFollowUp', { delayMinutes: 90, text: 'Did you get a chance to look at the quote?' }),
        ),
      );
      const before = ts.clock.now().getTime();
      expect((await say(c, id, phone, 'Tell me about panels', ts.runDue)).turn).toMatchObject({
        status: 'done',
        actions: ['reply', 'tagLead', 'markHot', 'markQualified', 'updateSummary', 'scheduleFollowUp'],
        error: null,
      });
      const l = await lead(c, id);
      expect(l).toMatchObject({
        isHot: true,
        isQualified: true,
        summary: 'Wants panels on a tiled roof.',
        isAiOn: true,
      });
      expect(l.tags).toEqual([{ id: expect.any(String), name: 'solar', condition: 'asked about panels' }]);
      // docs.apten.ai/webhooks/lead-tagged: the tag by name; hasReplied, isHot and isQualified are tags too.
      expect((await outboxFor(ts, id, 'leadTagged')).map((e) => e.data)).toEqual([
        { leadId: id, externalLeadId: l.externalLeadId, phone, channel: 'sms', tag: 'hasReplied' },
        {
          leadId: id,
          externalLeadId: l.externalLeadId,
          phone,
          channel: 'sms',
          tag: 'solar',
          tagId: l.tags[0]!.id,
          condition: 'asked about panels',
        },
        { leadId: id, externalLeadId: l.externalLeadId, phone, channel: 'sms', tag: 'isHot' },
        { leadId: id, externalLeadId: l.externalLeadId, phone, channel: 'sms', tag: 'isQualified' },
      ]);

      const ms = await messages(c, id);
      expect(ms.find((m) => m.content.text === 'Happy to help, Olga!')).toMatchObject({
        owner: 'user',
        isAiGenerated: true,
        channel: 'sms',
        direction: 'outbound',
      });
      const followUp = ms.find((m) => m.content.text === 'Did you get a chance to look at the quote?')!;
      expect(followUp).toMatchObject({ owner: 'user', isAiGenerated: true, status: 'scheduled' });
      expect(Date.parse(followUp.scheduledTime!)).toBeGreaterThanOrEqual(before + 90 * 60_000 - 1000);
      expect(Date.parse(followUp.scheduledTime!)).toBeLessThanOrEqual(ts.clock.now().getTime() + 90 * 60_000 + 1000);
      const sent = await outboxFor(ts, id, 'message.sent');
      expect(sent.map((e) => e.data)).toEqual([
        expect.objectContaining({ text: 'Happy to help, Olga!', isAiGenerated: true, leadId: id }),
      ]);

      // A tag the lead already has is not added twice.
      fake.program(phone, tools(call('tagLead', { name: 'Solar', condition: 'again' })));
      expect((await say(c, id, phone, 'and batteries?', ts.runDue)).turn).toMatchObject({
        status: 'done',
        actions: ['tagLead'],
      });
      expect((await lead(c, id)).tags).toHaveLength(1);
      expect(await outboxFor(ts, id, 'leadTagged')).toHaveLength(4);
    });

    it('hands off to a human: the AI is off after its last word, and later replies trigger no turn', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id, phone } = await newLead(ts);
      fake.program(
        phone,
        tools(
          call('reply', { text: 'A colleague will call you shortly.' }),
          call('handOff', { reason: 'wants a human' }),
        ),
      );
      expect((await say(c, id, phone, 'Can I talk to a person?', ts.runDue)).turn).toMatchObject({
        status: 'done',
        actions: ['reply', 'handOff'],
      });
      expect((await lead(c, id)).isAiOn).toBe(false);
      const ms = await messages(c, id);
      expect(aiMessages(ms)).toMatchObject([
        { content: { text: 'A colleague will call you shortly.' }, status: 'sent' },
      ]);
      const later = await inbound(c, phone, 'Hello?');
      await ts.runDue();
      expect((await turns(c, id)).map((t) => t.triggerMessageId)).not.toContain(later.messageId);
      expect(fake.requestsFor(phone)).toHaveLength(1);
    });

    it('opts the lead out with source ai, one optOut event per channel that changed', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id, phone } = await newLead(ts, { email: `o${Math.random().toString(36).slice(2, 8)}@example.com` });
      fake.program(phone, tools(call('optOut', { channels: ['email'] })), tools(call('optOut')));
      expect((await say(c, id, phone, 'no emails please', ts.runDue)).turn).toMatchObject({
        status: 'done',
        actions: ['optOut'],
      });
      expect((await lead(c, id)).subscriptions).toEqual({
        sms: 'subscribed',
        voice: 'subscribed',
        email: 'unsubscribed',
      });
      await say(c, id, phone, 'actually, nothing at all', ts.runDue);
      const l = await lead(c, id);
      expect(l.subscriptions).toEqual({ sms: 'unsubscribed', voice: 'unsubscribed', email: 'unsubscribed' });
      expect(l.isAiOn).toBe(true);
      const events = await outboxFor(ts, id, 'optOut');
      expect(events.map((e) => [e.data.channel, e.data.source])).toEqual([
        ['email', 'ai'],
        ['sms', 'ai'],
        ['call', 'ai'],
      ]);
    });

    it('retries after a 500 and replies exactly once', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id, phone } = await newLead(ts);
      fake.program(phone, { kind: 'status', status: 500 }, tools(call('reply', { text: 'Sorry for the wait!' })));
      const { messageId, turn } = await say(c, id, phone, 'hello?', stepThroughRetries(ts));
      expect(turn).toMatchObject({ status: 'done', actions: ['reply'] });
      expect(fake.requestsFor(phone)).toHaveLength(2);
      expect(aiMessages(await messages(c, id)).map((m) => m.status)).toEqual(['sent']);

      // The same job delivered again (a lapsed lease, a crash after the commit): the turn is not repeated.
      await ts.server.store.db
        .updateTable('jobs')
        .set({ status: 'pending', run_at: ts.clock.now().toISOString(), lease_until: null })
        .where('name', '=', 'ai.turn')
        .where('payload', 'like', `%${messageId}%`)
        .execute();
      await ts.runDue();
      const again = await ts.server.store.db
        .selectFrom('jobs')
        .select('status')
        .where('payload', 'like', `%${messageId}%`)
        .executeTakeFirst();
      expect(again?.status).toBe('done');
      expect(fake.requestsFor(phone)).toHaveLength(2);
      expect(aiMessages(await messages(c, id))).toHaveLength(1);
      expect(await turns(c, id)).toHaveLength(1);
    });

    it.each<[string, FakeBehaviour, RegExp]>([
      ['an unknown tool', tools(call('sendBitcoin', { amount: 1 })), /unknown tool "sendBitcoin"/],
      ['arguments that are not JSON', tools(call('reply', '{"text": "Hi')), /arguments of reply are not valid JSON/],
      ['a reply with empty text', tools(call('reply', { text: '' })), /invalid arguments for reply/],
      ['a reply of blanks', tools(call('reply', { text: '   ' })), /invalid arguments for reply/],
      ['an extra argument', tools(call('markHot', { really: true })), /invalid arguments for markHot/],
      [
        'a good reply next to a bad tag',
        tools(call('reply', { text: 'Hello!' }), call('tagLead', { name: 'x' })),
        /invalid arguments for tagLead/,
      ],
      ['a body that is not JSON', { kind: 'raw', body: 'oops, not json' }, /not valid JSON/],
      ['an answer without choices', { kind: 'raw', body: '{"object":"chat.completion"}' }, /no choices/],
      ['a 401', { kind: 'status', status: 401 }, /HTTP 401/],
    ])('fails the turn on %s, sends nothing and keeps the message', async (_what, behaviour, error) => {
      const ts = ctx();
      const { id, phone } = await newLead(ts);
      fake.program(phone, behaviour);
      await expectFailedTurn(ts, id, phone, 'hi there', error);
      expect(fake.requestsFor(phone)).toHaveLength(3);
    });

    it('skips the turn when the AI is turned off while the model thinks', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id, phone } = await newLead(ts);
      fake.program(phone, { kind: 'tools', calls: [call('reply', { text: 'Too late' })], delayMs: 100 });
      const r = await inbound(c, phone, 'hello');
      expect((await c.post(`/leads/${id}/turnOffAi`)).status).toBe(200);
      await ts.runDue();
      const all = await turns(c, id);
      expect(all).toMatchObject([
        { triggerMessageId: r.messageId, status: 'skipped', error: 'AI is off for this lead', actions: [] },
      ]);
      await ts.runDue();
      expect(aiMessages(await messages(c, id))).toHaveLength(0);
    });

    it('answers a burst of messages once: an older turn stands down for a newer message', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id, phone } = await newLead(ts);
      fake.program(phone, { kind: 'tools', calls: [call('reply', { text: 'One answer for both' })], delayMs: 100 });
      const a = await inbound(c, phone, 'hi');
      const b = await inbound(c, phone, 'are you there?');
      await ts.runDue();
      const all = await turns(c, id);
      expect(finished(all)).toBe(true);
      expect(all.find((t) => t.triggerMessageId === a.messageId)).toMatchObject({
        status: 'skipped',
        error: 'superseded by a newer message from the lead',
      });
      expect(all.find((t) => t.triggerMessageId === b.messageId)).toMatchObject({ status: 'done', actions: ['reply'] });
      expect(aiMessages(await messages(c, id)).map((m) => m.content.text)).toEqual(['One answer for both']);
    });
  },
  ENV,
);

// A model that never answers is timed out by the wall clock, once per attempt: its own server with a short
// timeout, so the three attempts take a second instead of 4.5 (the suite above keeps 1500 ms, long enough that
// a fake answering at once never times out on a loaded machine).
describeEachDialect(
  'the OpenAI-compatible agent, when the model hangs',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('records a model that never answers as a failed turn after the retries; nothing is sent, the message is kept', async () => {
      const ts = ctx();
      const { id, phone } = await newLead(ts);
      fake.program(phone, { kind: 'hang' });
      const messageId = await expectFailedTurn(ts, id, phone, 'anyone there?', /did not answer within 300 ms/);
      expect(fake.requestsFor(phone)).toHaveLength(3); // the first attempt and two retries (PARLEY_JOB_RETRY_SCHEDULE=50ms,50ms)
      const job = await ts.server.store.db
        .selectFrom('jobs')
        .selectAll()
        .where('payload', 'like', `%${messageId}%`)
        .executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'failed', attempts: 3 });
    });
  },
  { ...ENV, PARLEY_AI_TIMEOUT_MS: '300' },
);
