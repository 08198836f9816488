import { expect, it } from 'vitest';
import { LATE_NIGHT, MIDDAY, NEXT_MORNING, REALISTIC_HOURS, useRealisticHours } from '../support/clock-hours.js';
import { outboxFor } from '../support/events.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';
import { statusAfterStep } from '../support/messages.js';
import { until } from '../support/assert.js';

/**
 * Sends waiting for contact hours are judged again when the organization
 * changes its hours (PATCH /v1/settings): the first hour of a new user was a
 * message that "did nothing", and widening the hours did not release it.
 */

const SCOPES = ['settings:write', 'settings:read', 'leads:write', 'leads:read', 'messages:write'] as const;

async function jobOf(ts: TestServer, messageId: string) {
  return ts.server.store.db
    .selectFrom('jobs')
    .selectAll()
    .where('payload', 'like', `%${messageId}%`)
    .executeTakeFirstOrThrow();
}

/** An organization on 08:00-21:00 Los Angeles, the clock at 23:00 there, and a send that waits for 08:00. */
async function waitingSend(
  ts: TestServer,
  org: string,
  body: Record<string, unknown> = {},
): Promise<{ client: Client; leadId: string; messageId: string }> {
  const client = await ts.clientWithScopes([...SCOPES], org);
  await useRealisticHours(client);
  ts.clock.set(LATE_NIGHT);
  const leadId = await createLead(client, { timeZone: REALISTIC_HOURS.timeZone });
  const res = await client.post(`/leads/${leadId}/sendMessage`, { message: 'Good evening', ...body });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    status: 'waiting',
    statusCode: 'CONTACT_HOURS',
    scheduledTime: NEXT_MORNING.toISOString(),
  });
  expect(res.body.statusReason).toMatch(/contact hours 08:00-21:00 America\/Los_Angeles/);
  return { client, leadId, messageId: res.body.id };
}

/**
 * An organization whose own hours are 13:00-14:00 Los Angeles, the clock at 12:00 there (inside the
 * legal 08:00-21:00), and a send that waits for 13:00: wider hours can release it now.
 */
async function waitingByDay(
  ts: TestServer,
  org: string,
): Promise<{ client: Client; leadId: string; messageId: string }> {
  const client = await ts.clientWithScopes([...SCOPES], org);
  expect(
    (
      await client.patch('/settings', {
        timeZone: REALISTIC_HOURS.timeZone,
        contactHours: { start: '13:00', end: '14:00' },
      })
    ).status,
  ).toBe(200);
  ts.clock.set(MIDDAY);
  const leadId = await createLead(client, { timeZone: REALISTIC_HOURS.timeZone });
  const res = await client.post(`/leads/${leadId}/sendMessage`, { message: 'Good afternoon' });
  expect(res.body).toMatchObject({
    status: 'waiting',
    statusCode: 'CONTACT_HOURS',
    statusReason: 'outside contact hours 13:00-14:00 America/Los_Angeles',
  });
  return { client, leadId, messageId: res.body.id };
}

describeEachDialect(
  'PATCH /v1/settings re-judges the sends waiting for contact hours',
  (ctx) => {
    it('wider hours release a waiting message at once: it goes out', async () => {
      const ts = ctx();
      const { client, leadId, messageId } = await waitingByDay(ts, 'release-wider');
      expect((await statusAfterStep(ctx(), client, leadId, messageId, () => true)).status).toBe('scheduled');
      expect((await client.patch('/settings', { contactHours: { start: '00:00', end: '23:59' } })).status).toBe(200);
      await statusAfterStep(ctx(), client, leadId, messageId, (s) => s === 'sent');
      expect(await outboxFor(ts, leadId, 'message.sent')).toHaveLength(1);
    });

    it('at night, hours of 00:00-23:59 re-judge a waiting message but keep it for 08:00: the legal floor holds', async () => {
      const ts = ctx();
      const { client, leadId, messageId } = await waitingSend(ts, 'release-night');
      expect((await client.patch('/settings', { contactHours: { start: '00:00', end: '23:59' } })).status).toBe(200);
      // Judged again under the new hours: its reason is now the legal window's, and it still waits for 08:00.
      const msg = await until(
        () => statusAfterStep(ctx(), client, leadId, messageId, () => true),
        (m) => String(m.statusReason).startsWith('outside the legal window'),
        10_000,
        { what: "the legal window's reason", every: 30 },
      );
      expect(msg).toMatchObject({
        status: 'scheduled',
        statusCode: 'CONTACT_HOURS',
        statusReason: 'outside the legal window 08:00-21:00 America/Los_Angeles',
        scheduledTime: NEXT_MORNING.toISOString(),
      });
      expect(await outboxFor(ts, leadId, 'message.sent')).toHaveLength(0);
    });

    it("hours that still forbid it move its time to the new window's opening, and it stays unsent", async () => {
      const ts = ctx();
      const { client, leadId, messageId } = await waitingSend(ts, 'release-narrower');
      expect((await client.patch('/settings', { contactHours: { start: '09:00', end: '20:00' } })).status).toBe(200);
      const nineAm = new Date(NEXT_MORNING.getTime() + 3_600_000).toISOString();
      const runAt = await until(
        async () => new Date((await jobOf(ts, messageId)).run_at).toISOString(),
        (at) => at === nineAm,
        10_000,
        { what: "the job moved to the new window's opening", every: 30 },
      );
      expect(runAt).toBe(nineAm);
      const msg = await statusAfterStep(ctx(), client, leadId, messageId, () => true);
      expect(msg).toMatchObject({ status: 'scheduled', statusCode: 'CONTACT_HOURS' });
      expect(msg.statusReason).toMatch(/09:00-20:00/);
      expect(await outboxFor(ts, leadId, 'message.sent')).toHaveLength(0);
    });

    it('a send asked for later is never released before the time asked for', async () => {
      const ts = ctx();
      const asked = new Date(LATE_NIGHT.getTime() + 30 * 60_000).toISOString();
      const { client, leadId, messageId } = await waitingSend(ts, 'release-not-before', { scheduledTime: asked });
      expect((await client.patch('/settings', { contactHours: { start: '00:00', end: '23:59' } })).status).toBe(200);
      expect(new Date((await jobOf(ts, messageId)).run_at).toISOString()).toBe(asked);
      expect((await statusAfterStep(ctx(), client, leadId, messageId, () => true)).status).toBe('scheduled');
      expect(await outboxFor(ts, leadId, 'message.sent')).toHaveLength(0);
    });

    it('other settings, a refused change and other organizations leave waiting sends alone', async () => {
      const ts = ctx();
      const mine = await waitingSend(ts, 'release-mine');
      const theirs = await waitingByDay(ts, 'release-theirs');
      const runAt = (await jobOf(ts, mine.messageId)).run_at;
      expect((await mine.client.patch('/settings', { helpText: 'Reply STOP to stop.' })).status).toBe(200);
      expect(
        (
          await mine.client.patch('/settings', {
            contactHours: { start: '00:00', end: '23:59' },
            timeZone: 'Atlantis/Capital',
          })
        ).status,
      ).toBe(400);
      expect((await jobOf(ts, mine.messageId)).run_at).toBe(runAt);
      expect(
        (
          await theirs.client.patch('/settings', {
            contactDays: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
            contactHours: { start: '00:00', end: '23:59' },
          })
        ).status,
      ).toBe(200);
      await statusAfterStep(ctx(), theirs.client, theirs.leadId, theirs.messageId, (s) => s === 'sent');
      expect((await jobOf(ts, mine.messageId)).run_at).toBe(runAt);
      expect((await statusAfterStep(ctx(), mine.client, mine.leadId, mine.messageId, () => true)).status).toBe(
        'scheduled',
      );
    });
  },
  { PARLEY_WORKER_POLL_MS: '20' },
);
