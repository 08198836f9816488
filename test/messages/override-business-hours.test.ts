import fc from 'fast-check';
import { expect, it } from 'vitest';
import { checkOutbound } from '../../src/compliance/gate.js';
import { findLead } from '../../src/lead-records/leads.repository.js';
import { readSettings } from '../../src/settings/settings.service.js';
import { messages } from '../agent/helpers.js';
import { LATE_NIGHT, MIDDAY, NEXT_MORNING } from '../support/clock-hours.js';
import { outboxFor } from '../support/events.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';
import { statusAfterStep } from '../support/messages.js';

/** The organization's own hours, 13:00-14:00 in Los Angeles: MIDDAY (12:00 there) is outside them but inside the legal 08:00-21:00. */
const SHORT_HOURS = { timeZone: 'America/Los_Angeles', contactHours: { start: '13:00', end: '14:00' } };
const LA = 'America/Los_Angeles';

async function org(ts: TestServer, name: string, settings: Record<string, unknown> = SHORT_HOURS): Promise<Client> {
  const client = await ts.clientWithScopes(['settings:write', 'leads:write', 'leads:read', 'messages:write'], name);
  const res = await client.patch('/settings', settings);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return client;
}

async function send(c: Client, leadId: string, body: Record<string, unknown>) {
  const res = await c.post(`/leads/${leadId}/sendMessage`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    id: string;
    message: string;
    status: string;
    statusCode: string | null;
    statusReason: string | null;
    scheduledTime: string;
    scheduleFollowUps: boolean;
  };
}

function localMinutes(at: Date, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  return (
    Number(parts.find((p) => p.type === 'hour')!.value) * 60 + Number(parts.find((p) => p.type === 'minute')!.value)
  );
}

describeEachDialect(
  "sendMessage overrideBusinessHours: the organization's hours are lifted, the legal window never",
  (ctx) => {
    it("without the override a send outside the organization's hours waits; with it, it goes out now", async () => {
      const ts = ctx();
      ts.clock.set(MIDDAY);
      const c = await org(ts, 'override-org-hours');
      const leadId = await createLead(c, { timeZone: LA });
      const held = await send(c, leadId, { message: 'Waits for 13:00' });
      expect(held).toMatchObject({
        message: 'Message sent successfully.',
        status: 'waiting',
        statusCode: 'CONTACT_HOURS',
        statusReason: 'outside contact hours 13:00-14:00 America/Los_Angeles',
      });
      expect(held.scheduledTime).toBe(new Date(MIDDAY.getTime() + 3_600_000).toISOString());
      const now = await send(c, leadId, { message: 'Goes now', overrideBusinessHours: true });
      expect(now).toMatchObject({ message: 'Message sent successfully.', status: 'scheduled', statusCode: null });
      expect(new Date(now.scheduledTime).getTime() - MIDDAY.getTime()).toBeLessThan(60_000);
      await statusAfterStep(ctx(), c, leadId, now.id, (s) => s === 'sent');
      expect((await outboxFor(ts, leadId, 'message.sent')).map((e) => e.data.messageId)).toEqual([now.id]);
    });

    it('at 23:00 where the lead is, the override still waits for 08:00 (the legal window), then sends', async () => {
      const ts = ctx();
      ts.clock.set(LATE_NIGHT);
      const c = await org(ts, 'override-night');
      const leadId = await createLead(c, { timeZone: LA });
      const night = await send(c, leadId, { message: 'Not before 08:00', overrideBusinessHours: true });
      expect(night).toMatchObject({
        status: 'waiting',
        statusCode: 'CONTACT_HOURS',
        statusReason: 'outside the legal window 08:00-21:00 America/Los_Angeles',
        scheduledTime: NEXT_MORNING.toISOString(),
      });
      // The worker runs, the message stays held: nothing goes out before the window.
      await ts.runDue();
      expect((await messages(c, leadId)).find((m) => m.id === night.id)?.status).toBe('scheduled');
      expect(await outboxFor(ts, leadId, 'message.sent')).toHaveLength(0);
      ts.clock.set(NEXT_MORNING);
      await statusAfterStep(ctx(), c, leadId, night.id, (s) => s === 'sent');
    });

    it('a send scheduled for the night with the override is held by the gate at send time too', async () => {
      const ts = ctx();
      ts.clock.set(MIDDAY);
      const c = await org(ts, 'override-scheduled-night');
      const leadId = await createLead(c, { timeZone: LA });
      const res = await send(c, leadId, {
        message: 'At 23:00?',
        overrideBusinessHours: true,
        scheduledTime: LATE_NIGHT.toISOString(),
      });
      // Judged for the time it would go out: held until the legal window opens.
      expect(res).toMatchObject({
        status: 'waiting',
        scheduledTime: NEXT_MORNING.toISOString(),
        statusReason: 'outside the legal window 08:00-21:00 America/Los_Angeles',
      });
      ts.clock.set(LATE_NIGHT);
      await ts.runDue();
      expect((await messages(c, leadId)).find((m) => m.id === res.id)?.status).toBe('scheduled');
      expect(await outboxFor(ts, leadId, 'message.sent')).toHaveLength(0);
    });

    it('with regional rules on, the override keeps the stricter state window (Florida: 08:00-20:00)', async () => {
      const ts = ctx();
      // 20:30 in Miami (00:30 UTC the next day), a Wednesday: inside 08:00-21:00, outside Florida's 08:00-20:00.
      ts.clock.set(new Date('2026-07-02T00:30:00Z'));
      const c = await org(ts, 'override-florida', {
        timeZone: 'America/New_York',
        contactHours: { start: '09:00', end: '10:00' },
        regionalRules: true,
      });
      const leadId = await createLead(c, { phone: `+1305555${String(Math.floor(Math.random() * 9000) + 1000)}` });
      const res = await send(c, leadId, { message: 'Too late for Florida', overrideBusinessHours: true });
      expect(res).toMatchObject({
        status: 'waiting',
        statusCode: 'CONTACT_HOURS',
        statusReason: 'outside the regional window 08:00-20:00 (US-FL)',
      });
      expect(res.scheduledTime).toBe('2026-07-02T12:00:00.000Z');
    });

    it("property: whatever the organization's hours and the instant, the gate never allows an overridden send outside 08:00-21:00 where the lead is", async () => {
      const ts = ctx();
      const c = await org(ts, 'override-property');
      const leadId = await createLead(c, { timeZone: LA });
      const lead = (await findLead(
        ts.server.store.db,
        (
          await ts.server.store.db
            .selectFrom('leads')
            .select('organization_id')
            .where('id', '=', leadId)
            .executeTakeFirstOrThrow()
        ).organization_id,
        leadId,
      ))!;
      const base = await readSettings(ts.server.store.db, lead.organization_id);
      const hhmm = fc
        .tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 15, 30, 45))
        .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-12-31T00:00:00Z') }),
          hhmm,
          hhmm,
          async (t, start, end) => {
            const now = new Date(t);
            const settings = { ...base, contactHours: { start, end } };
            const decision = await checkOutbound(ts.server.store.db, ts.server.deps.digests, lead.organization_id, {
              lead,
              channel: 'sms',
              purpose: 'conversation',
              sendWhenOff: false,
              automated: false,
              settings,
              now,
              overrideBusinessHours: true,
            });
            const minute = localMinutes(now, LA);
            const legal = minute >= 8 * 60 && minute < 21 * 60;
            expect(
              decision.kind === 'allowed',
              `${now.toISOString()} (${Math.floor(minute / 60)}:${minute % 60} LA), org ${start}-${end}`,
            ).toBe(legal);
            if (decision.kind === 'wait') expect(new Date(decision.until).getTime()).toBeGreaterThan(now.getTime());
          },
        ),
        { numRuns: 300, seed: 20261123 },
      );
    });

    it('sendMessage takes the documented body: scheduleFollowUps is kept on the message, call is voice', async () => {
      const ts = ctx();
      ts.clock.set(MIDDAY);
      const c = await org(ts, 'documented-body', { timeZone: LA, contactHours: { start: '08:00', end: '21:00' } });
      const leadId = await createLead(c, { timeZone: LA });
      const res = await send(c, leadId, {
        message: 'Hello',
        scheduledTime: MIDDAY.toISOString(),
        sendWhenOff: false,
        scheduleFollowUps: true,
        overrideBusinessHours: false,
        channel: 'call',
      });
      expect(res).toMatchObject({
        message: 'Message sent successfully.',
        status: 'scheduled',
        channel: 'voice',
        scheduleFollowUps: true,
      });
      const row = await ts.server.store.db
        .selectFrom('messages')
        .selectAll()
        .where('id', '=', res.id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ channel: 'voice', schedule_follow_ups: 1 });
      const plain = await send(c, leadId, { message: 'Again' });
      expect(plain.scheduleFollowUps).toBe(false);
      expect(
        (
          await ts.server.store.db
            .selectFrom('messages')
            .select('schedule_follow_ups')
            .where('id', '=', plain.id)
            .executeTakeFirstOrThrow()
        ).schedule_follow_ups,
      ).toBeNull();
      const unknown = await c.post(`/leads/${leadId}/sendMessage`, { message: 'x', scheduleFollowUp: true });
      expect(unknown.status).toBe(400);
      await ts.runDue();
      expect(await messages(c, leadId)).toHaveLength(2);
    });
  },
  { PARLEY_WORKER_POLL_MS: '20' },
);
