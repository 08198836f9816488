import { afterAll, beforeEach, expect, it } from 'vitest';
import { bookAppointment } from '../../src/appointments/appointments.service.js';
import { createUser } from '../../src/users/users.service.js';
import { messages } from '../agent/helpers.js';
import { outboxFor } from '../support/events.js';
import { startFakeCalcom } from '../support/fake-calcom.js';
import { describeEachDialect, type TestServer } from '../support/harness.js';
import { startSmtpSink } from '../support/smtp-sink.js';
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

const sink = await startSmtpSink();
const cal = await startFakeCalcom();
afterAll(async () => {
  await sink.close();
  await cal.close();
});

const ENV = {
  PARLEY_WORKER_POLL_MS: '20',
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
  SMTP_URL: sink.url,
  PARLEY_EMAIL_FROM: 'Acme Sales <sales@acme.test>',
  PARLEY_PUBLIC_URL: 'http://127.0.0.1',
  PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
};

const FRIDAY_SLOTS = THURSDAY_SLOTS.map((s) => s.replace('07-02', '07-03'));
const FRIDAY_LABELS = THURSDAY_LABELS.map((l) => l.replace('Thu, Jul 2', 'Fri, Jul 3'));

const orgId = async (ts: TestServer, name: string) =>
  (await ts.server.store.db.selectFrom('organizations').select('id').where('name', '=', name).executeTakeFirstOrThrow())
    .id;

describeEachDialect(
  'appointments booked by the scripted agent and the API',
  (ctx) => {
    beforeEach(() => ctx().clock.set(WEDNESDAY));

    it('a lead who asks "can we talk Thursday afternoon?" is offered slots in their own zone and gets one booked (embedded): event, reminders, .ics', async () => {
      const ts = ctx();
      const c = ts.acme;
      await setCalendar(ts, c, EMBEDDED);
      const { id, phone, email } = await newLead(c);

      const asked = await say(c, id, phone, 'can we talk Thursday afternoon?');
      expect(asked.status).toBe('done');
      expect(asked.steps).toHaveLength(1);
      expect(asked.steps[0]!.calls[0]).toMatchObject({
        tool: 'findSlots',
        ok: true,
        result: { timeZone: 'America/Los_Angeles' },
      });
      const offer = await lastAiText(c, id);
      // In the lead's zone (Los Angeles), though the calendar's hours are New York's.
      expect(offer).toContain(`1) ${THURSDAY_LABELS[0]}, 2) ${THURSDAY_LABELS[1]}, 3) ${THURSDAY_LABELS[2]}`);

      const accepted = await say(c, id, phone, '2');
      expect(accepted.status).toBe('done');
      expect(accepted.steps[0]!.calls[0]).toMatchObject({
        tool: 'bookAppointment',
        ok: true,
        result: { start: THURSDAY_SLOTS[1] },
      });
      expect(await lastAiText(c, id)).toContain(`You are booked for ${THURSDAY_LABELS[1]}`);

      const [a, ...more] = await appointmentsOf(c, id);
      expect(more).toHaveLength(0);
      expect(a).toMatchObject({
        leadId: id,
        ownerId: null,
        start: THURSDAY_SLOTS[1],
        end: THURSDAY_SLOTS[2],
        timeZone: 'America/Los_Angeles',
        status: 'booked',
        provider: 'embedded',
        externalId: null,
        createdByTurnId: accepted.id,
      });
      // Reminders queued: 24 h and 1 h before.
      expect(a.reminders).toEqual([
        { kind: 'reminder:1440', dueAt: '2026-07-01T19:30:00.000Z', status: 'pending', messageId: null },
        { kind: 'reminder:60', dueAt: '2026-07-02T18:30:00.000Z', status: 'pending', messageId: null },
      ]);
      expect((await c.get(`/leads/${id}`)).body.isBooked).toBe(true);
      const booked = await outboxFor(ts, id, 'appointment.booked');
      expect(booked.map((e) => e.data)).toEqual([
        {
          leadId: id,
          externalLeadId: null,
          appointmentId: a.id,
          start: THURSDAY_SLOTS[1],
          end: THURSDAY_SLOTS[2],
          timeZone: 'America/Los_Angeles',
          owner: null,
          provider: 'embedded',
        },
      ]);

      // The lead's timeline shows it.
      const timeline = await c.get(`/leads/${id}/events?since=2026-01-01T00:00:00Z&types=CUSTOM`);
      expect(timeline.status).toBe(200);
      expect(timeline.body.events.map((e: { type: string; data: unknown }) => [e.type, e.data])).toEqual([
        [
          'CUSTOM',
          {
            name: 'appointment',
            appointmentId: a.id,
            status: 'booked',
            start: THURSDAY_SLOTS[1],
            end: THURSDAY_SLOTS[2],
            timeZone: 'America/Los_Angeles',
            ownerId: null,
            provider: 'embedded',
          },
        ],
      ]);

      // The invitation: an email to the lead through SMTP, with the .ics.
      await ts.runDue();
      const mail = sink.received.find((m) => m.rcptTo.includes(email));
      expect(mail!.headers.get('subject')).toBe('Appointment with acme');
      expect(mail!.raw).toContain('BEGIN:VCALENDAR');
      expect(mail!.raw).toContain('METHOD:REQUEST');
      expect(mail!.raw).toContain('DTSTART:20260702T193000Z');
      expect(mail!.raw).toContain('filename=invite.ics');

      // The 24 h reminder, when due, is a message through the gate like any other.
      ts.clock.set('2026-07-01T19:31:00Z');
      await ts.runDue();
      const ms = await messages(c, id);
      expect(ms.find((m) => m.content.text.includes('a reminder of our appointment'))!.content.text).toContain(
        THURSDAY_LABELS[1],
      );
      const after = (await appointmentsOf(c, id))[0];
      expect(after.reminders.map((r: { status: string }) => r.status)).toEqual(['sent', 'pending']);
    });

    it('a slot taken meanwhile answers 409, and the agent offers other slots', async () => {
      const ts = ctx();
      const c = ts.acme;
      await setCalendar(ts, c, EMBEDDED);
      const ann = await newLead(c);
      const bob = await newLead(c);
      await say(c, ann.id, ann.phone, 'Could we have a call Friday afternoon?');
      expect(await lastAiText(c, ann.id)).toContain(`1) ${FRIDAY_LABELS[0]}, 2) ${FRIDAY_LABELS[1]}`);

      // Someone else takes the first slot through the API; the same slot again is a 409.
      const first = await c.post(`/leads/${bob.id}/appointments`, { start: FRIDAY_SLOTS[0] });
      expect(first.status).toBe(200);
      const again = await c.post(`/leads/${bob.id}/appointments`, { start: FRIDAY_SLOTS[0], durationMinutes: 15 });
      expect(again.status).toBe(409);
      expect(again.body.message).toMatch(/no longer free/);

      const turn = await say(c, ann.id, ann.phone, '1');
      expect(turn.steps.map((s) => s.calls.map((k) => [k.tool, k.ok]))).toEqual([
        [['bookAppointment', false]],
        [['findSlots', true]],
      ]);
      expect(turn.steps[0]!.calls[0]!.result).toMatchObject({ code: 'slot_taken' });
      const text = await lastAiText(c, ann.id);
      expect(text).toMatch(/^Sorry, that time was just taken\. I can offer: /);
      expect(text).not.toContain(FRIDAY_LABELS[0]);
      expect(text).toContain(`1) ${FRIDAY_LABELS[1]}`);
      expect(await appointmentsOf(c, ann.id)).toHaveLength(0);
    });

    it('double booking of one owner is impossible under concurrency; reschedule, cancel and no-show', async () => {
      const ts = ctx();
      const c = ts.acme;
      await setCalendar(ts, c, EMBEDDED);
      const leads = await Promise.all(Array.from({ length: 8 }, () => newLead(c)));
      const start = '2026-07-03T14:00:00.000Z';
      // Eight bookings of the same slot and eight overlapping it by 15 minutes, all at once.
      const answers = await Promise.all(
        leads.flatMap((l) => [
          c.post(`/leads/${l.id}/appointments`, { start }),
          c.post(`/leads/${l.id}/appointments`, { start: '2026-07-03T14:15:00.000Z', durationMinutes: 30 }),
        ]),
      );
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(15);
      const winner = answers.find((r) => r.status === 200)!.body;
      const listed = await c.get(`/appointments?from=2026-07-03T13:00:00Z&to=2026-07-03T15:00:00Z`);
      expect(listed.body.appointments.map((a: { id: string }) => a.id)).toEqual([winner.id]);

      // Reschedule: the event names the previous start; the reminders follow the new time.
      const moved = await c.patch(`/appointments/${winner.id}`, { start: '2026-07-06T15:00:00Z' });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({
        start: '2026-07-06T15:00:00.000Z',
        end: '2026-07-06T15:30:00.000Z',
        status: 'booked',
      });
      expect(
        moved.body.reminders
          .filter((r: { status: string }) => r.status === 'pending')
          .map((r: { dueAt: string }) => r.dueAt),
      ).toEqual(['2026-07-05T15:00:00.000Z', '2026-07-06T14:00:00.000Z']);
      const rescheduled = await outboxFor(ts, winner.leadId, 'appointment.rescheduled');
      expect(rescheduled.map((e) => e.data)).toMatchObject([
        { appointmentId: winner.id, start: '2026-07-06T15:00:00.000Z', previousStart: winner.start },
      ]);
      // The old slot is free again.
      const fresh = await newLead(c);
      expect((await c.post(`/leads/${fresh.id}/appointments`, { start: winner.start })).status).toBe(200);

      const cancelled = await c.post(`/appointments/${winner.id}/cancel`, { reason: 'lead asked' });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.status).toBe('cancelled');
      expect(cancelled.body.reminders.every((r: { status: string }) => r.status === 'skipped')).toBe(true);
      expect((await outboxFor(ts, winner.leadId, 'appointment.cancelled')).map((e) => e.data)).toMatchObject([
        { appointmentId: winner.id, reason: 'lead asked' },
      ]);
      expect((await c.get(`/leads/${winner.leadId}`)).body.isBooked).toBe(false);
      expect((await c.post(`/appointments/${winner.id}/cancel`, {})).status).toBe(409);

      // No-show: only once it started; then the lead gets a follow-up.
      const l = await newLead(c);
      const b = await c.post(`/leads/${l.id}/appointments`, { start: '2026-07-01T20:00:00Z', notes: 'demo' });
      expect(b.status).toBe(200);
      expect((await c.post(`/appointments/${b.body.id}/no-show`)).status).toBe(409);
      ts.clock.set('2026-07-01T20:40:00Z');
      const noShow = await c.post(`/appointments/${b.body.id}/no-show`);
      expect(noShow.status).toBe(200);
      expect(noShow.body.status).toBe('no_show');
      await ts.runDue();
      expect((await messages(c, l.id)).filter((m) => m.content.text.includes('we missed you'))).toHaveLength(1);
      expect((await c.get(`/leads/${l.id}`)).body.isBooked).toBe(false);

      // Validation and scoping.
      expect((await c.post(`/leads/${l.id}/appointments`, { start: '2020-01-01T10:00:00Z' })).status).toBe(400);
      expect(
        (await c.post(`/leads/${l.id}/appointments`, { start: '2026-07-09T10:00:00Z', ownerId: 'nobody' })).status,
      ).toBe(400);
      expect((await ts.beta.get(`/appointments/${b.body.id}`)).status).toBe(404);

      // Erasing the lead erases its appointments, their blocks and reminders.
      expect((await c.get(`/appointments/${b.body.id}`)).status).toBe(200);
      expect((await c.del(`/leads/${l.id}`)).status).toBe(200);
      expect((await c.get(`/appointments/${b.body.id}`)).status).toBe(404);
      const db = ts.server.store.db;
      expect(
        await db.selectFrom('appointment_reminders').select('id').where('appointment_id', '=', b.body.id).execute(),
      ).toEqual([]);
      expect(
        await db
          .selectFrom('appointment_slots')
          .select('block_start')
          .where('appointment_id', '=', b.body.id)
          .execute(),
      ).toEqual([]);
    });

    it("an owner's own hours and zone; one owner's slot does not block another's; reminders per profile", async () => {
      const ts = ctx();
      const c = ts.acme;
      const org = await orgId(ts, 'acme');
      const at = new Date().toISOString();
      const { user } = await createUser(
        ts.server.store.db,
        org,
        { email: `rep-${Math.random().toString(36).slice(2, 8)}@acme.test`, role: 'agent' },
        at,
      );
      await c.post('/customerProfiles', { name: 'vip' });
      await setCalendar(ts, c, {
        ...EMBEDDED,
        calendar: { ...EMBEDDED.calendar, profileReminderMinutes: { vip: [120] } },
      });
      const put = await c.call('PUT', `/users/${user.id}/availability`, {
        timeZone: 'Europe/Paris',
        weeklyHours: { thu: [['10:00', '11:00']] },
      });
      expect(put.status).toBe(200);
      expect(
        (await c.call('PUT', `/users/${user.id}/availability`, { timeZone: 'Mars/Olympus', weeklyHours: {} })).status,
      ).toBe(400);
      const { id } = await newLead(c, { customerProfile: 'vip' });

      // 10:00-11:00 in Paris on Thursday is 08:00-09:00Z, labelled in the lead's zone (Los Angeles).
      const slots = await c.get(`/leads/${id}/appointmentSlots?ownerId=${user.id}`);
      expect(slots.status).toBe(200);
      expect(slots.body).toEqual({
        timeZone: 'America/Los_Angeles',
        slots: [
          { start: '2026-07-02T08:00:00.000Z', end: '2026-07-02T08:30:00.000Z', label: 'Thu, Jul 2, 1:00 AM PDT' },
          { start: '2026-07-02T08:30:00.000Z', end: '2026-07-02T09:00:00.000Z', label: 'Thu, Jul 2, 1:30 AM PDT' },
        ],
      });
      const mine = await c.post(`/leads/${id}/appointments`, { start: '2026-07-02T08:00:00Z', ownerId: user.id });
      expect(mine.status).toBe(200);
      expect(mine.body).toMatchObject({
        ownerId: user.id,
        reminders: [{ kind: 'reminder:120', dueAt: '2026-07-02T06:00:00.000Z', status: 'pending' }],
      });
      expect((await outboxFor(ts, id, 'appointment.booked')).at(-1)!.data).toMatchObject({ owner: user.id });
      // The organization's calendar is another calendar; the owner's is now full at 08:00.
      expect((await c.post(`/leads/${id}/appointments`, { start: '2026-07-02T08:00:00Z', ownerId: null })).status).toBe(
        200,
      );
      expect(
        (await c.post(`/leads/${id}/appointments`, { start: '2026-07-02T08:00:00Z', ownerId: user.id })).status,
      ).toBe(409);
      expect(
        (await c.get(`/leads/${id}/appointmentSlots?ownerId=${user.id}`)).body.slots.map(
          (s: { start: string }) => s.start,
        ),
      ).toEqual(['2026-07-02T08:30:00.000Z']);
      const listed = await c.get(`/appointments?from=2026-07-02T00:00:00Z&to=2026-07-03T00:00:00Z&ownerId=${user.id}`);
      expect(listed.body.appointments.map((a: { id: string }) => a.id)).toEqual([mine.body.id]);
    });

    it('a turn run twice books once: the booking is keyed on the turn and the step', async () => {
      const ts = ctx();
      const c = ts.acme;
      const { id } = await newLead(c);
      const org = await orgId(ts, 'acme');
      const key = `turn-${id}:0:0`;
      const [a, b] = await Promise.all([
        bookAppointment(ts.server.deps, org, id, { start: new Date('2026-07-07T15:00:00Z'), bookingKey: key }),
        bookAppointment(ts.server.deps, org, id, { start: new Date('2026-07-07T15:00:00Z'), bookingKey: key }),
      ]);
      expect(a.id).toBe(b.id);
      expect(await appointmentsOf(c, id)).toHaveLength(1);
      expect(await outboxFor(ts, id, 'appointment.booked')).toHaveLength(1);
    });

    it("Cal.com v2: slots asked in the lead's zone, the accepted one booked there, cancelled there", async () => {
      const ts = ctx();
      const c = ts.beta;
      cal.setSlots(THURSDAY_SLOTS);
      await setCalendar(ts, c, {
        contactHours: { start: '00:00', end: '00:00' },
        calendar: { provider: 'calcom', calcom: { baseUrl: cal.url, apiKey: cal.key, eventTypeId: 42 } },
      });
      const view = (await c.get('/settings')).body.calendar;
      expect(view!.calcom).toEqual({ baseUrl: cal.url, eventTypeId: 42, apiKeySet: true });
      const { id, phone, email } = await newLead(c, { firstName: 'Cleo', lastName: 'Park' });

      await say(c, id, phone, 'can we talk Thursday afternoon?');
      expect(await lastAiText(c, id)).toContain(`1) ${THURSDAY_LABELS[0]}, 2) ${THURSDAY_LABELS[1]}`);
      const slotsCall = cal.requests.filter((r) => r.path.startsWith('/v2/slots')).at(-1)!;
      expect(slotsCall.headers['cal-api-version']).toBe('2024-09-04');
      expect(new URL(slotsCall.path, 'http://x').searchParams.get('timeZone')).toBe('America/Los_Angeles');
      expect(new URL(slotsCall.path, 'http://x').searchParams.get('eventTypeId')).toBe('42');

      const turn = await say(c, id, phone, 'the first one');
      expect(turn.steps[0]!.calls[0]).toMatchObject({ tool: 'bookAppointment', ok: true });
      const post = cal.requests.filter((r) => r.path === '/v2/bookings').at(-1)!;
      expect(post.headers['cal-api-version']).toBe('2024-08-13');
      expect(post.body).toMatchObject({
        eventTypeId: 42,
        start: THURSDAY_SLOTS[0],
        attendee: { name: 'Cleo Park', email, timeZone: 'America/Los_Angeles' },
      });
      const [a] = await appointmentsOf(c, id);
      expect(a).toMatchObject({ provider: 'calcom', start: THURSDAY_SLOTS[0], status: 'booked' });
      expect(cal.bookings.get(a.externalId)).toMatchObject({ status: 'accepted', start: THURSDAY_SLOTS[0] });
      expect((await outboxFor(ts, id, 'appointment.booked')).map((e) => e.data)).toMatchObject([
        { appointmentId: a.id, provider: 'calcom', timeZone: 'America/Los_Angeles' },
      ]);
      expect(a.reminders).toHaveLength(2);

      // Cal.com refuses a slot booked there already: 409.
      const other = await newLead(c);
      expect((await c.post(`/leads/${other.id}/appointments`, { start: THURSDAY_SLOTS[0] })).status).toBe(409);

      // Rescheduling goes through Cal.com, which answers a new booking (uid).
      const moved = await c.patch(`/appointments/${a.id}`, { start: THURSDAY_SLOTS[2] });
      expect(moved.status).toBe(200);
      const reschedule = cal.requests.at(-1)!;
      expect(reschedule.path).toBe(`/v2/bookings/${a.externalId}/reschedule`);
      expect(reschedule.body).toMatchObject({ start: THURSDAY_SLOTS[2] });
      expect(moved.body.externalId).not.toBe(a.externalId);
      expect(cal.bookings.get(moved.body.externalId!)).toMatchObject({ status: 'accepted', start: THURSDAY_SLOTS[2] });

      const cancelled = await c.post(`/appointments/${a.id}/cancel`, { reason: 'changed plans' });
      expect(cancelled.status).toBe(200);
      expect(cal.bookings.get(moved.body.externalId!)!.status).toBe('cancelled');
      expect(cal.requests.at(-1)!.body).toEqual({ cancellationReason: 'changed plans' });
    });
  },
  ENV,
);
