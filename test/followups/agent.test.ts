import { afterAll, expect, it } from 'vitest';
import { ALWAYS_OPEN, lead, openAiAgentEnv, until } from '../agent/helpers.js';
import { call, startFakeOpenAi, tools } from '../support/fake-openai.js';
import { createLead, describeEachDialect, uniquePhone, type TestServer } from '../support/harness.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

/**
 * A follow-up's text comes from the agent: here the OpenAI-compatible one,
 * against a fake server on real HTTP. The model is told which step it writes
 * and on which channel; when it cannot answer (after the configured retries)
 * no message goes out and the lead says why.
 */

const fake = await startFakeOpenAi('sk-test-parley-followups-0123');
afterAll(() => fake.close());

const ENV = openAiAgentEnv(fake);

const HOUR = 3_600_000;

async function dueLead(ts: TestServer, channel: string) {
  expect((await ts.acme.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
  const phone = uniquePhone();
  const id = await createLead(ts.acme, { phone, email: `fu-${phone.slice(1)}@example.com` });
  expect((await ts.acme.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 2, channel } } })).status).toBe(200);
  return { id, phone };
}

const followUps = (ts: TestServer, leadId: string) =>
  ts.server.store.db
    .selectFrom('messages')
    .select(['text', 'channel', 'status', 'follow_up_step', 'is_ai_generated'])
    .where('lead_id', '=', leadId)
    .where('is_follow_up', '=', 1)
    .execute();

describeEachDialect(
  'follow-ups written by the OpenAI-compatible agent',
  (ctx) => {
    startEachTestInDaytime(ctx);

    it("sends the model's reply as the step's message, on the step's channel, having told it which step it writes", async () => {
      const ts = ctx();
      const { id, phone } = await dueLead(ts, 'email');
      fake.program(phone, tools(call('reply', { text: 'Still keen on a visit next week?' }), call('markHot')));
      ts.clock.advance(2 * HOUR + 60_000);
      await ts.runDue();
      const [msg] = await followUps(ts, id);
      expect(msg).toEqual({
        text: 'Still keen on a visit next week?',
        channel: 'email',
        status: 'sent',
        follow_up_step: 1,
        is_ai_generated: 1,
      });
      const asked = fake.requestsFor(phone);
      expect(asked).toHaveLength(1);
      const system = String(asked[0]!.body.messages[0].content);
      expect(system).toContain('Follow-up 1: the lead has not answered for 2 hours since the last message.');
      expect(system).toContain('for an email');
      // Only the reply is taken from a follow-up's answer: the lead was not marked hot.
      expect((await lead(ts.acme, id)).isHot).toBe(false);
    });

    it('records why when the model cannot answer: no message, the note on the lead', async () => {
      const ts = ctx();
      const { id, phone } = await dueLead(ts, 'text');
      fake.program(phone, { kind: 'status', status: 500 });
      ts.clock.advance(2 * HOUR + 60_000);
      const l = await until(
        () => lead(ts.acme, id),
        (x) => x.nextFollowUpAt === null,
        15_000,
      );
      expect(l.followUpStep).toBe(1);
      expect(l.followUpNote).toMatch(/^step 1 not sent: the agent could not write it \(.+\)$/);
      expect(fake.requestsFor(phone).length).toBeGreaterThanOrEqual(2);
      expect(await followUps(ts, id)).toEqual([]);
    });
  },
  ENV,
);
