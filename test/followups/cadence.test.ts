import { expect, it } from 'vitest';
import { ALWAYS_OPEN, FAST_AGENT_ENV, inbound, lead, messages } from '../agent/helpers.js';
import { createLead, describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { LATE_NIGHT, useRealisticHours, startEachTestInDaytime } from '../support/clock-hours.js';
import { outboxFor } from '../support/events.js';

/**
 * The follow-up cadence behind update lead's followUpConfig / followUpStep,
 * end to end: real HTTP, the worker, the test clock moved past each step's
 * hours. A step goes out as the agent's message through the compliance gate;
 * a reply, an opt-out, the AI off or a reset stop what was scheduled.
 */

const HOUR = 3_600_000;
const MINUTE = 60_000;
const Q1 = 'Which day suits you for a visit?';
const Q2 = 'Is the morning or the afternoon better?';

let profiles = 0;
async function profile(c: Client, questions: string[]): Promise<string> {
  profiles += 1;
  const name = `followups-${profiles}`;
  const res = await c.post('/customerProfiles', { name, instructions: 'Book a visit.', questions });
  expect(res.status).toBe(201);
  return name;
}

interface FollowUpRow {
  id: string;
  text: string;
  channel: string;
  status: string;
  status_reason: string | null;
  follow_up_step: number | null;
  is_ai_generated: number;
}

async function followUps(ts: TestServer, leadId: string): Promise<FollowUpRow[]> {
  return ts.server.store.db
    .selectFrom('messages')
    .select(['id', 'text', 'channel', 'status', 'status_reason', 'follow_up_step', 'is_ai_generated'])
    .where('lead_id', '=', leadId)
    .where('is_follow_up', '=', 1)
    .orderBy('id')
    .execute() as Promise<FollowUpRow[]>;
}

/** The follow-up jobs of a lead and their states. */
async function followUpJobs(ts: TestServer, leadId: string) {
  return ts.server.store.db
    .selectFrom('jobs')
    .select(['status', 'payload', 'run_at'])
    .where('name', '=', 'followup.send')
    .where('payload', 'like', `%${leadId}%`)
    .orderBy('created_at')
    .execute();
}

/** Runs the worker's step, then checks every follow-up job of the lead has run. */
async function allJobsDone(ts: TestServer, leadId: string) {
  await ts.runDue();
  const js = await followUpJobs(ts, leadId);
  expect(js.length).toBeGreaterThan(0);
  expect(js.map((j) => j.status)).toEqual(js.map(() => 'done'));
  return js;
}

/** A lead on a profile, with a first message from the organization that went out (a conversation to follow up). */
async function conversingLead(ts: TestServer, questions: string[], fields: Record<string, unknown> = {}) {
  const c = ts.acme;
  expect((await c.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
  const phone = uniquePhone();
  const id = await createLead(c, {
    phone,
    email: `lead${profiles}-${Date.now()}@example.com`,
    customerProfile: await profile(c, questions),
    ...fields,
  });
  const sent = await c.post(`/leads/${id}/sendMessage`, { message: 'Hello from the team' });
  expect(sent.status).toBe(200);
  await ts.runDue();
  expect((await messages(c, id)).find((m) => m.id === sent.body.id)?.status).toBe('sent');
  return { id, phone };
}

/** The due time lies `hours` after some instant between `from` and now (the server's clock). */
function dueAbout(ts: TestServer, due: string | null, hours: number, from: number): void {
  expect(due).not.toBeNull();
  const at = new Date(due!).getTime();
  expect(at).toBeGreaterThanOrEqual(from + hours * HOUR);
  expect(at).toBeLessThanOrEqual(ts.clock.now().getTime() + hours * HOUR);
}

describeEachDialect(
  'the follow-up cadence',
  (ctx) => {
    startEachTestInDaytime(ctx);

    it('sends each step its hours after the last unanswered message, on its channel, written by the agent, then rests in long-term nurture', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id } = await conversingLead(ts, [Q1, Q2]);
      // A human message without scheduleFollowUps arms nothing by itself.
      expect((await lead(c, id)).followUpStep).toBeNull();

      const config = { 1: { hours: 1, channel: 'text' }, 2: { hours: 24, channel: 'email' } };
      const t0 = ts.clock.now().getTime();
      const set = await c.patch(`/leads/${id}`, { followUpConfig: config });
      expect(set.body).toMatchObject({ followUpStep: 1, followUpConfig: config });
      dueAbout(ts, set.body.nextFollowUpAt, 1, t0);

      // Not before its hours.
      ts.clock.advance(59 * MINUTE);
      await ts.runDue();
      expect(await followUps(ts, id)).toEqual([]);

      ts.clock.advance(2 * MINUTE);
      await ts.runDue();
      const [first] = await followUps(ts, id);
      expect(first?.status).toBe('sent');
      expect(first).toMatchObject({ text: Q1, channel: 'sms', follow_up_step: 1, is_ai_generated: 1 });
      const shown = (await messages(c, id)).find((m) => m.id === first!.id);
      expect(shown).toMatchObject({ owner: 'user', isAiGenerated: true, direction: 'outbound', status: 'sent' });

      // Step 2 waits its 24 hours from the moment step 1 went out.
      const l1 = await lead(c, id);
      expect(l1.followUpStep).toBe(2);
      dueAbout(ts, l1.nextFollowUpAt, 24, ts.clock.now().getTime() - 5_000);

      ts.clock.advance(24 * HOUR + MINUTE);
      await ts.runDue();
      const both = await followUps(ts, id);
      expect(both[1]?.status).toBe('sent');
      expect(both[1]).toMatchObject({ text: Q2, channel: 'email', follow_up_step: 2 });

      // No step 3: the lead rests in long-term nurture, nothing more is scheduled.
      const l2 = await lead(c, id);
      expect(l2.followUpStep).toBe(-2);
      expect(l2.nextFollowUpAt).toBeNull();
      expect(l2.followUpNote).toBe('step 2 was the last: long-term nurture');
      ts.clock.advance(100 * HOUR);
      await ts.runDue();
      expect(await followUps(ts, id)).toHaveLength(2);
    });

    it('sendMessage with scheduleFollowUps starts the wait from the moment it is sent; without it a human send leaves the schedule alone', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id } = await conversingLead(ts, [Q1]);
      await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 6, channel: 'text' } }, followUpStep: -1 });
      await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 6, channel: 'text' } }, followUpStep: 1 });
      const scheduled = (await lead(c, id)).nextFollowUpAt;
      ts.clock.advance(HOUR);

      const plain = await c.post(`/leads/${id}/sendMessage`, { message: 'A note from a person' });
      await ts.runDue();
      expect((await messages(c, id)).find((m) => m.id === plain.body.id)?.status).toBe('sent');
      expect((await lead(c, id)).nextFollowUpAt).toBe(scheduled);

      const t0 = ts.clock.now().getTime();
      const arming = await c.post(`/leads/${id}/sendMessage`, { message: 'Shall we book?', scheduleFollowUps: true });
      expect(arming.status).toBe(200);
      await ts.runDue();
      expect((await messages(c, id)).find((m) => m.id === arming.body.id)?.status).toBe('sent');
      const l = await lead(c, id);
      expect(l.followUpStep).toBe(1);
      dueAbout(ts, l.nextFollowUpAt, 6, t0);
      expect(new Date(l.nextFollowUpAt!).getTime()).toBeGreaterThan(new Date(scheduled!).getTime());
    });

    it("announces a follow-up's message.sent with isFollowUp and its followUpStep", async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id } = await conversingLead(ts, [Q1]);
      await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 1, channel: 'text' } } });
      ts.clock.advance(HOUR + MINUTE);
      await ts.runDue();
      const [sent] = await followUps(ts, id);
      expect(sent?.status).toBe('sent');
      const events = await outboxFor(ts, id, 'message.sent');
      expect(events).toHaveLength(2);
      expect(events[0]!.data).toMatchObject({ isFollowUp: false, followUpStep: null });
      expect(events[1]!.data).toMatchObject({
        leadId: id,
        isFollowUp: true,
        followUpStep: 1,
        content: { text: sent!.text },
      });
    });

    it("the AI's own message starts the wait: a reply the agent answers schedules the first step its hours later", async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id, phone } = await conversingLead(ts, [Q1, Q2]);
      await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 3, channel: 'text' } }, followUpStep: -1 });
      await c.patch(`/leads/${id}`, { followUpStep: 1 });
      const t0 = ts.clock.now().getTime();
      expect((await inbound(c, phone, 'Hi, tell me more')).action).toBe('conversation');
      await ts.runDue();
      // The reply put the cadence back at step 1, waiting; the agent's answer (Q1) went out and armed it.
      expect((await messages(c, id)).filter((m) => m.content.text === Q1).map((m) => m.status)).toContain('sent');
      const l = await lead(c, id);
      expect(new Date(l.nextFollowUpAt!).getTime()).toBeGreaterThanOrEqual(t0 + 3 * HOUR);
      expect(l.followUpStep).toBe(1);
      dueAbout(ts, l.nextFollowUpAt, 3, t0);
    });

    it('a step scheduled on a lead never written to goes out too: the agent writes it from what it knows of the lead', async () => {
      const ts = ctx();
      const c = ts.acme;
      expect((await c.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
      const id = await createLead(c, { customerProfile: await profile(c, [Q2]) });
      await c.patch(`/leads/${id}`, {
        followUpConfig: { 1: { hours: 1, channel: 'text' }, 2: { hours: 2, channel: 'text' } },
        followUpStep: 2,
      });
      ts.clock.advance(2 * HOUR + MINUTE);
      await ts.runDue();
      const [only] = await followUps(ts, id);
      expect(only).toMatchObject({ text: Q2, follow_up_step: 2, status: 'sent' });
      expect(await lead(c, id)).toMatchObject({ followUpStep: -2, nextFollowUpAt: null });
    });

    it('a reply from the lead stops what was scheduled: nothing goes out at the old time', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id, phone } = await conversingLead(ts, []); // no questions: the agent does not answer, nothing re-arms
      await c.patch(`/leads/${id}`, {
        followUpConfig: { 1: { hours: 2, channel: 'text' }, 2: { hours: 2, channel: 'text' } },
        followUpStep: 2,
      });
      expect((await inbound(c, phone, 'Thanks, I will think about it')).action).toBe('conversation');
      const l = await lead(c, id);
      expect(l).toMatchObject({ followUpStep: 1, nextFollowUpAt: null });
      expect(l.followUpNote).toMatch(/^the lead replied at .*: follow-ups wait for the next message to the lead$/);
      ts.clock.advance(3 * HOUR);
      await allJobsDone(ts, id);
      expect(await followUps(ts, id)).toEqual([]);
      expect((await lead(c, id)).followUpStep).toBe(1);
    });

    it('a reset makes the earlier schedule stale: it fires at the new time only, once', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id } = await conversingLead(ts, [Q1]);
      await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 1, channel: 'text' } } });
      await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 5, channel: 'text' } } });
      ts.clock.advance(HOUR + MINUTE);
      await ts.runDue();
      expect((await followUpJobs(ts, id))[0]?.status).toBe('done');
      expect(await followUps(ts, id)).toEqual([]);
      expect((await lead(c, id)).followUpStep).toBe(1);

      ts.clock.advance(4 * HOUR);
      await allJobsDone(ts, id);
      expect((await followUps(ts, id))[0]?.status).toBe('sent');
      expect(await followUps(ts, id)).toHaveLength(1);
    });

    it('ten concurrent updates of one lead leave one schedule: only the last one written fires, once', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id } = await conversingLead(ts, [Q1, Q2]);
      const config = {
        1: { hours: 1, channel: 'text' },
        2: { hours: 1, channel: 'text' },
        3: { hours: 1, channel: 'text' },
        4: { hours: 1, channel: 'text' },
      };
      expect((await c.patch(`/leads/${id}`, { followUpConfig: config })).status).toBe(200);
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => c.patch(`/leads/${id}`, { followUpStep: (i % 3) + 1 })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
      const final = await lead(c, id);
      ts.clock.advance(HOUR + MINUTE);
      await ts.runDue();
      const [only] = await followUps(ts, id);
      expect(only?.status).toBe('sent');
      // Every job of the updates has run; the one left is the next step's, due an hour after the one sent.
      const jobs = await followUpJobs(ts, id);
      expect(jobs).toHaveLength(12);
      expect(jobs.filter((j) => j.status === 'pending')).toHaveLength(1);
      expect(await followUps(ts, id)).toHaveLength(1);
      expect(only!.follow_up_step).toBe(final.followUpStep);
      // The updates were applied one after the other under the lead's lock: each made its own generation.
      const generations = jobs.map((j) => (JSON.parse(j.payload) as { generation: number }).generation);
      expect(new Set(generations).size).toBe(12);
    });

    it('followUpStep -1 stops it: the scheduled job finds nothing to do', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id } = await conversingLead(ts, [Q1]);
      await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 1, channel: 'text' } } });
      await c.patch(`/leads/${id}`, { followUpStep: -1 });
      ts.clock.advance(2 * HOUR);
      await allJobsDone(ts, id);
      expect(await followUps(ts, id)).toEqual([]);
      expect((await lead(c, id)).followUpStep).toBe(-1);
    });

    it('the AI off stops it when the step comes due, and says so', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id } = await conversingLead(ts, [Q1]);
      await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 1, channel: 'text' } } });
      expect((await c.post(`/leads/${id}/turnOffAi`)).status).toBe(200);
      ts.clock.advance(2 * HOUR);
      await ts.runDue();
      const l = await lead(c, id);
      expect(l.followUpStep).toBe(-1);
      expect(l.followUpNote).toBe('stopped at step 1: AI is off for this lead');
      expect(l.nextFollowUpAt).toBeNull();
      expect(await followUps(ts, id)).toEqual([]);
    });

    it("an opt-out stops it at once, with the opt-out's channel in the note", async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id, phone } = await conversingLead(ts, [Q1]);
      await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 1, channel: 'email' } } });
      expect((await inbound(c, phone, 'STOP')).action).toBe('opted_out');
      const l = await lead(c, id);
      expect(l).toMatchObject({ followUpStep: -1, nextFollowUpAt: null });
      expect(l.followUpNote).toMatch(/^stopped: the lead opted out of sms/);
      ts.clock.advance(2 * HOUR);
      await allJobsDone(ts, id);
      expect(await followUps(ts, id)).toEqual([]);
    });

    it('goes through the compliance gate like every send: a number on the DNC list blocks the step, recorded with its reason', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id, phone } = await conversingLead(ts, [Q1]);
      await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 1, channel: 'call' } } });
      expect((await c.post('/dnc/register', { phone })).status).toBe(200);
      ts.clock.advance(2 * HOUR);
      await ts.runDue();
      const [blocked] = await followUps(ts, id);
      expect(blocked).toMatchObject({
        status: 'blocked',
        channel: 'voice',
        follow_up_step: 1,
        status_reason: 'phone is on the Do Not Contact list',
      });
    });

    it('when the agent has nothing to say, no message goes out and the lead shows why', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id } = await conversingLead(ts, []); // the scripted agent only asks its profile's questions
      await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 1, channel: 'text' } } });
      ts.clock.advance(2 * HOUR);
      await ts.runDue();
      const l = await lead(c, id);
      expect(l.nextFollowUpAt).toBeNull();
      expect(l.followUpStep).toBe(1);
      expect(l.followUpNote).toBe(
        "step 1 not sent: the scripted agent had nothing to say (the scripted agent only asks its profile's questions)",
      );
      expect(await followUps(ts, id)).toEqual([]);
    });

    // Last in the suite: it puts the clock back to a night in July and the organization on realistic hours.
    it('a step that waits for contact hours is never sent after a reply or a stop: it is recorded blocked, saying why', async () => {
      const ts = ctx();
      const c = ts.acme;
      // 20:00 in Los Angeles, where the leads' numbers are: the first messages go out; the steps fall due after 21:00, outside the legal window.
      ts.clock.set(new Date(LATE_NIGHT.getTime() - 3 * HOUR));
      const a = await conversingLead(ts, [Q1]);
      const b = await conversingLead(ts, [Q1]);
      for (const { id } of [a, b])
        await c.patch(`/leads/${id}`, { followUpConfig: { 1: { hours: 1, channel: 'text' } } });
      await useRealisticHours(c);
      ts.clock.advance(HOUR + MINUTE);
      await ts.runDue();
      for (const { id } of [a, b]) {
        const [waiting] = await followUps(ts, id);
        expect(waiting?.status).toBe('scheduled');
        expect(waiting?.status_reason).not.toBeNull();
        expect(waiting!.text).toBe(Q1);
      }
      expect((await inbound(c, a.phone, 'Sorry, who is this?')).action).toBe('conversation');
      expect((await c.patch(`/leads/${b.id}`, { followUpStep: -1 })).status).toBe(200);
      expect((await followUps(ts, a.id))[0]).toMatchObject({
        status: 'blocked',
        status_reason: 'the lead replied before it was sent',
      });
      expect((await followUps(ts, b.id))[0]).toMatchObject({
        status: 'blocked',
        status_reason: 'follow-ups were stopped before it was sent',
      });
      const shown = (await messages(c, a.id)).find(
        (m) => m.content.text === Q1 && m.status === 'blocked',
      ) as unknown as { statusCode: string };
      expect(shown.statusCode).toBe('FOLLOW_UP_STOPPED');
      expect((await c.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
    });
  },
  FAST_AGENT_ENV,
);
