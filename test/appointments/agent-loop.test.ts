import { afterAll, beforeEach, expect, it } from 'vitest';
import { openAiAgentEnv } from '../agent/helpers.js';
import { outboxFor } from '../support/events.js';
import { call, startFakeOpenAi, tools } from '../support/fake-openai.js';
import { describeEachDialect } from '../support/harness.js';
import {
  EMBEDDED,
  THURSDAY_LABELS,
  THURSDAY_SLOTS,
  WEDNESDAY,
  appointmentsOf,
  lastAiText,
  newLead,
  say,
  setCalendar,
} from './support.js';

const fake = await startFakeOpenAi('sk-test-parley-appointments-01');
afterAll(() => fake.close());

const toolMessages = (body: any) =>
  (body.messages as { role: string; content: string | null; tool_call_id?: string }[]).filter((m) => m.role === 'tool');

describeEachDialect(
  'the OpenAI-compatible agent books through tools, in a bounded loop',
  (ctx) => {
    beforeEach(() => ctx().clock.set(WEDNESDAY));

    it('looks slots up, sees them before it answers, and books the one the lead accepts', async () => {
      const ts = ctx();
      const c = ts.acme;
      await setCalendar(ts, c, EMBEDDED);
      const { id, phone } = await newLead(c);
      fake.program(
        phone,
        tools(call('findSlots', { from: '2026-07-02T19:00:00Z', to: '2026-07-03T00:00:00Z' })),
        tools(call('reply', { text: `I can do ${THURSDAY_LABELS[0]} or ${THURSDAY_LABELS[1]}. Which suits you?` })),
        tools(call('bookAppointment', { start: THURSDAY_SLOTS[1], notes: 'intro call' })),
        tools(call('reply', { text: 'Booked, see you then!' })),
      );

      const asked = await say(c, id, phone, 'can we talk Thursday afternoon?');
      expect(asked).toMatchObject({ status: 'done', actions: ['reply'] });
      expect(asked.steps.map((s) => s.calls.map((k) => k.tool))).toEqual([['findSlots']]);
      const [first, second] = fake.requestsFor(phone);
      expect(first!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(
        expect.arrayContaining(['findSlots', 'bookAppointment', 'rescheduleAppointment', 'cancelAppointment']),
      );
      expect(first!.body.messages[0].content).toContain("The lead's time zone: America/Los_Angeles");
      // The second call carries the first's tool call and its result, in the chat-completions shape.
      const assistant = second!.body.messages.at(-2);
      expect(assistant).toMatchObject({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 's0c0', type: 'function', function: { name: 'findSlots' } }],
      });
      const [result] = toolMessages(second!.body);
      expect(result!.tool_call_id).toBe('s0c0');
      const found = JSON.parse(result!.content!);
      expect(found.timeZone).toBe('America/Los_Angeles');
      expect(found.slots.slice(0, 2)).toEqual([
        { start: THURSDAY_SLOTS[0], end: THURSDAY_SLOTS[1], label: THURSDAY_LABELS[0] },
        { start: THURSDAY_SLOTS[1], end: THURSDAY_SLOTS[2], label: THURSDAY_LABELS[1] },
      ]);
      expect(await lastAiText(c, id)).toContain(THURSDAY_LABELS[1]);

      const accepted = await say(c, id, phone, '12:30 works for me');
      expect(accepted.steps[0]!.calls[0]).toMatchObject({
        tool: 'bookAppointment',
        ok: true,
        result: { start: THURSDAY_SLOTS[1] },
      });
      // The next turn's prompt names what was offered before.
      expect(fake.requestsFor(phone)[2]!.body.messages[0].content).toContain(
        `${THURSDAY_LABELS[1]} = ${THURSDAY_SLOTS[1]}`,
      );
      expect(await lastAiText(c, id)).toBe('Booked, see you then!');
      const [a] = await appointmentsOf(c, id);
      expect(a).toMatchObject({
        start: THURSDAY_SLOTS[1],
        notes: 'intro call',
        createdByTurnId: accepted.id,
        status: 'booked',
      });
      expect(await outboxFor(ts, id, 'appointment.booked')).toHaveLength(1);
      expect(a.reminders.map((r: { status: string }) => r.status)).toEqual(['pending', 'pending']);
    });

    it('a failing tool is reported to the model, which offers other slots; the loop stops at PARLEY_AGENT_MAX_STEPS', async () => {
      const ts = ctx();
      const c = ts.acme;
      await setCalendar(ts, c, EMBEDDED);
      const taken = await newLead(c);
      expect((await c.post(`/leads/${taken.id}/appointments`, { start: THURSDAY_SLOTS[3] })).status).toBe(200);

      const { id, phone } = await newLead(c);
      fake.program(
        phone,
        tools(call('bookAppointment', { start: THURSDAY_SLOTS[3] })),
        tools(call('findSlots', { from: '2026-07-02T19:00:00Z' })),
        tools(call('reply', { text: 'That one just went; how about another time?' })),
      );
      const turn = await say(c, id, phone, 'Book me for 1:30 on Thursday');
      expect(turn.steps.map((s) => s.calls.map((k) => [k.tool, k.ok]))).toEqual([
        [['bookAppointment', false]],
        [['findSlots', true]],
      ]);
      const [failure] = toolMessages(fake.requestsFor(phone)[1]!.body);
      expect(JSON.parse(failure!.content!)).toEqual({
        error: {
          code: 'slot_taken',
          message: `The slot starting ${THURSDAY_SLOTS[3]} is no longer free; choose another one`,
        },
      });
      expect(await lastAiText(c, id)).toBe('That one just went; how about another time?');
      expect(await appointmentsOf(c, id)).toHaveLength(0);

      // A model that never stops looking: the turn ends after the configured steps (3 here), with nothing to apply.
      const looping = await newLead(c);
      fake.program(looping.phone, tools(call('findSlots', {})));
      const bounded = await say(c, looping.id, looping.phone, 'when are you free?');
      expect(bounded).toMatchObject({ status: 'done', actions: [] });
      expect(bounded.steps).toHaveLength(3);
      expect(fake.requestsFor(looping.phone)).toHaveLength(3);
    });

    it('without a calendar in settings, the calendar tools are not offered and a call to one is answered with an error', async () => {
      const ts = ctx();
      const c = ts.beta;
      const { id, phone } = await newLead(c);
      fake.program(phone, tools(call('findSlots', {})), tools(call('reply', { text: 'Let me check with the team.' })));
      const turn = await say(c, id, phone, 'can we talk Thursday afternoon?');
      expect(turn.steps[0]!.calls[0]).toMatchObject({ tool: 'findSlots', ok: false, result: { code: 'tool_failed' } });
      expect(
        fake.requestsFor(phone)[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name),
      ).not.toContain('findSlots');
      expect(await lastAiText(c, id)).toBe('Let me check with the team.');
    });
  },
  { ...openAiAgentEnv(fake), PARLEY_AGENT_MAX_STEPS: '3' },
);
