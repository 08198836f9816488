import { zonesForLead } from '../compliance/lead-zones.js';
import { emitEvents } from '../events/outbox.repository.js';
import { appointmentEvent } from '../events/payloads.js';
import { enqueueJob } from '../jobs/jobs.repository.js';
import { parseInfo } from '../lead-records/additional-info.js';
import { findLead, updateLead, type LeadRow } from '../lead-records/leads.repository.js';
import { isUniqueViolation } from '../platform/db/errors.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { DomainError, NotFound, leadNotFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import {
  DEFAULT_DURATION_MINUTES,
  DEFAULT_REMINDER_MINUTES,
  DEFAULT_WEEKLY_HOURS,
} from '../settings/calendar-settings.js';
import { readSettings, type CalendarSettings, type OrganizationSettings } from '../settings/settings.service.js';
import { findUser } from '../users/users.repository.js';
import { findAvailability } from './availability.repository.js';
import {
  findAppointment,
  findByBookingKey,
  hasUpcoming,
  heldBlocks,
  holdBlocks,
  insertAppointment,
  insertReminder,
  ownerKey,
  releaseBlocks,
  settleReminders,
  updateAppointment,
  type AppointmentRow,
} from './appointments.repository.js';
import { CalcomError, calcomBook, calcomCancel, calcomReschedule, calcomSlots } from './calcom.js';
import { blocksOf, freeSlots, slotLabel, type Slot } from './slots.js';

/** Without `calendar` in settings the embedded calendar (the organization's hours) serves the API; the agent books only once it is set. */
export function calendarOf(settings: OrganizationSettings): CalendarSettings {
  return (
    settings.calendar ?? {
      provider: 'embedded',
      durationMinutes: DEFAULT_DURATION_MINUTES,
      ownerId: null,
      timeZone: null,
      weeklyHours: DEFAULT_WEEKLY_HOURS,
      reminderMinutes: DEFAULT_REMINDER_MINUTES,
      profileReminderMinutes: {},
      calcom: null,
    }
  );
}

/** 409 with a clear message: the caller (or the agent) offers other slots. */
export class SlotTaken extends DomainError<'slot_taken'> {
  constructor(start: string) {
    super('slot_taken', { start });
  }
}

class CalendarUnavailable extends DomainError<'calendar_unavailable'> {
  constructor(message: string) {
    super('calendar_unavailable', { detail: message });
  }
}

const appointmentNotFound = (id: string) => new NotFound('Appointment', 'id', id);

/** The lead's zone as the gate finds it: the lead's own, its phone's, else the organization's. */
export async function leadZone(
  lead: Pick<LeadRow, 'time_zone' | 'phone'>,
  settings: OrganizationSettings,
): Promise<string> {
  const { zones } = await zonesForLead({ timeZone: lead.time_zone, phone: lead.phone }, settings.timeZone);
  return zones[0] ?? settings.timeZone;
}

/** The lead's language for dates, from additionalInfo `language` or `locale` (a BCP 47 tag), else English. */
export function leadLocale(lead: Pick<LeadRow, 'additional_info'>): string {
  const info = parseInfo(lead.additional_info);
  const tag =
    typeof info.language === 'string' ? info.language : typeof info.locale === 'string' ? info.locale : 'en-US';
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([tag]).length > 0 ? tag : 'en-US';
  } catch {
    return 'en-US';
  }
}

async function checkOwner(db: Db, organizationId: string, ownerId: string | null | undefined): Promise<string | null> {
  if (!ownerId) return null;
  const user = await findUser(db, organizationId, ownerId);
  if (!user || user.disabled_at) throw new DomainError('unknown_owner', { id: ownerId });
  return ownerId;
}

export interface OfferedSlot extends Slot {
  /** The start as the lead reads it: in the lead's zone and language. */
  label: string;
}

export interface SlotAnswer {
  timeZone: string;
  slots: OfferedSlot[];
}

const MAX_WINDOW_DAYS = 31;

/** Free slots between from and to (default: the next 7 days) on the calendar, labelled in the lead's zone. */
export async function findSlots(
  deps: Deps,
  organizationId: string,
  lead: LeadRow,
  q: { from?: Date; to?: Date; ownerId?: string | null; limit?: number },
): Promise<SlotAnswer> {
  const settings = await readSettings(deps.db, organizationId);
  const cal = calendarOf(settings);
  const now = deps.clock.now();
  // Not sooner than an hour from now: a slot must leave the owner time to see it.
  const earliest = new Date(now.getTime() + 3_600_000);
  const from = q.from && q.from > earliest ? q.from : earliest;
  const to = q.to ?? new Date(from.getTime() + 7 * 86_400_000);
  if (to <= from) return { timeZone: await leadZone(lead, settings), slots: [] };
  if (to.getTime() - from.getTime() > MAX_WINDOW_DAYS * 86_400_000)
    throw new DomainError('window_too_long', { days: MAX_WINDOW_DAYS });
  const zone = await leadZone(lead, settings);
  const limit = q.limit ?? 6;
  const ownerId = q.ownerId === undefined ? cal.ownerId : q.ownerId;
  let slots: Slot[];
  if (cal.provider === 'calcom' && cal.calcom) {
    slots = await calcomSlots(cal.calcom, from, to, zone, cal.durationMinutes).catch((err: unknown) => {
      throw new CalendarUnavailable(err instanceof Error ? err.message : String(err));
    });
    const taken = await heldBlocks(deps.db, organizationId, ownerKey(ownerId), from.toISOString(), to.toISOString());
    slots = slots
      .filter(
        (s) => s.start >= from.toISOString() && !blocksOf(new Date(s.start), new Date(s.end)).some((b) => taken.has(b)),
      )
      .slice(0, limit);
  } else {
    const own = ownerId ? await findAvailability(deps.db, organizationId, ownerId) : undefined;
    const taken = await heldBlocks(
      deps.db,
      organizationId,
      ownerKey(ownerId),
      from.toISOString(),
      new Date(to.getTime() + 86_400_000).toISOString(),
    );
    slots = freeSlots({
      from,
      to,
      durationMinutes: cal.durationMinutes,
      limit,
      taken,
      timeZone: own?.timeZone ?? cal.timeZone ?? settings.timeZone,
      weeklyHours: own?.weeklyHours ?? cal.weeklyHours,
    });
  }
  const locale = leadLocale(lead);
  return { timeZone: zone, slots: slots.map((s) => ({ ...s, label: slotLabel(s.start, zone, locale) })) };
}

export interface BookInput {
  start: Date;
  durationMinutes?: number;
  ownerId?: string | null;
  notes?: string | null;
  /** Idempotency: a second booking with the key answers the first (the agent's turn + step). */
  bookingKey?: string;
  turnId?: string | null;
}

function checkStart(start: Date, now: Date): void {
  if (Number.isNaN(start.getTime())) throw new DomainError('invalid_start');
  if (start.getTime() <= now.getTime()) throw new DomainError('start_in_past');
}

/** The reminders due before the start (profile's minutes, else the calendar's), and the jobs that send them. */
async function scheduleReminders(
  trx: Db,
  organizationId: string,
  cal: CalendarSettings,
  lead: LeadRow,
  a: AppointmentRow,
  now: Date,
): Promise<void> {
  const minutes = cal.profileReminderMinutes[lead.customer_profile] ?? cal.reminderMinutes;
  const at = now.toISOString();
  for (const m of [...new Set(minutes)]) {
    const due = new Date(new Date(a.start_at).getTime() - m * 60_000);
    if (due <= now) continue;
    const reminderId = await insertReminder(trx, organizationId, {
      appointmentId: a.id,
      kind: `reminder:${m}`,
      dueAt: due.toISOString(),
      at,
    });
    await enqueueJob(trx, organizationId, 'appointment.remind', { appointmentId: a.id, reminderId }, due, at);
  }
}

async function refreshBooked(trx: Db, organizationId: string, lead: LeadRow, at: string): Promise<void> {
  const booked = (await hasUpcoming(trx, organizationId, lead.id, at)) ? 1 : 0;
  if ((lead.is_booked ?? 0) !== booked)
    await updateLead(trx, organizationId, lead.id, { is_booked: booked, updated_at: at });
}

function externalFailure(err: unknown, start: string): never {
  if (err instanceof CalcomError && err.taken) throw new SlotTaken(start);
  if (err instanceof CalcomError) throw new CalendarUnavailable(err.message);
  throw err;
}

/**
 * Books a slot for the lead. On Cal.com the booking is made there first
 * (outside any transaction: no lock is held over the network); then, in one
 * transaction under the lead's lock, the appointment holds its blocks on the
 * owner's calendar (a block held already is a 409, on both dialects, whatever
 * the concurrency: the primary key decides), the lead is booked, the event is
 * emitted and the reminders and the invitation are queued. A Cal.com booking
 * whose blocks turn out taken here is cancelled there again.
 */
export async function bookAppointment(
  deps: Deps,
  organizationId: string,
  leadId: string,
  input: BookInput,
): Promise<AppointmentRow> {
  if (input.bookingKey) {
    const earlier = await findByBookingKey(deps.db, organizationId, input.bookingKey);
    if (earlier) return earlier;
  }
  const settings = await readSettings(deps.db, organizationId);
  const cal = calendarOf(settings);
  const now = deps.clock.now();
  checkStart(input.start, now);
  const lead = await findLead(deps.db, organizationId, leadId);
  if (!lead) throw leadNotFound(leadId);
  const ownerId = await checkOwner(deps.db, organizationId, input.ownerId === undefined ? cal.ownerId : input.ownerId);
  const duration = input.durationMinutes ?? cal.durationMinutes;
  const start = input.start;
  let end = new Date(start.getTime() + duration * 60_000);
  const zone = await leadZone(lead, settings);
  let externalId: string | null = null;
  const calcom = cal.provider === 'calcom' ? cal.calcom : null;
  const provider = calcom ? 'calcom' : 'embedded';
  if (calcom) {
    if (!lead.email) throw new DomainError('lead_has_no_email');
    const name = [lead.first_name, lead.last_name].filter(Boolean).join(' ') || 'Lead';
    const b = await calcomBook(
      calcom,
      start,
      { name, email: lead.email, timeZone: zone, ...(lead.phone ? { phoneNumber: lead.phone } : {}) },
      input.notes ?? null,
      { parleyLeadId: lead.id },
    ).catch((err: unknown) => externalFailure(err, start.toISOString()));
    externalId = b.uid;
    if (b.end > b.start) end = new Date(b.end);
  }
  const id = newId();
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const locked = await findLead(trx, organizationId, leadId, true);
      if (!locked) throw leadNotFound(leadId);
      const at = deps.clock.now().toISOString();
      const row: AppointmentRow = {
        organization_id: organizationId,
        id,
        lead_id: leadId,
        owner_user_id: ownerId,
        start_at: start.toISOString(),
        end_at: end.toISOString(),
        time_zone: zone,
        status: 'booked',
        provider,
        external_id: externalId,
        notes: input.notes ?? null,
        created_by_turn_id: input.turnId ?? null,
        booking_key: input.bookingKey ?? null,
        created_at: at,
        updated_at: at,
      };
      await insertAppointment(trx, row);
      await holdBlocks(trx, organizationId, ownerKey(ownerId), blocksOf(start, end), id);
      await refreshBooked(trx, organizationId, locked, at);
      await emitEvents(trx, organizationId, at, [appointmentEvent('appointment.booked', locked, row)]);
      await scheduleReminders(trx, organizationId, cal, locked, row, deps.clock.now());
      if (provider === 'embedded' && locked.email)
        await enqueueJob(
          trx,
          organizationId,
          'appointment.invite',
          { appointmentId: id, method: 'REQUEST' },
          deps.clock.now(),
          at,
        );
      return row;
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // The same booking key won meanwhile (a concurrent run of the same turn): that booking is this one.
    if (input.bookingKey) {
      const earlier = await findByBookingKey(deps.db, organizationId, input.bookingKey);
      if (earlier) return earlier;
    }
    // externalId is set only by the cal.com booking above, so calcom is set with it.
    if (externalId && calcom)
      await calcomCancel(calcom, externalId, 'The slot was taken in Parley meanwhile').catch(() => {});
    throw new SlotTaken(start.toISOString());
  }
}

async function loadBooked(deps: Deps, organizationId: string, id: string): Promise<AppointmentRow> {
  const a = await findAppointment(deps.db, organizationId, id);
  if (!a) throw appointmentNotFound(id);
  if (a.status !== 'booked')
    throw new DomainError('appointment_not_booked', {
      detail: `Appointment ${id} is ${a.status === 'no_show' ? 'marked no-show' : a.status}`,
    });
  return a;
}

/** Moves a booked appointment; the new slot is held before the old one is freed, in one transaction (409 when taken). */
export async function rescheduleAppointment(
  deps: Deps,
  organizationId: string,
  id: string,
  input: { start: Date; durationMinutes?: number; notes?: string | null },
): Promise<AppointmentRow> {
  const a = await loadBooked(deps, organizationId, id);
  const settings = await readSettings(deps.db, organizationId);
  const cal = calendarOf(settings);
  checkStart(input.start, deps.clock.now());
  const duration =
    input.durationMinutes ?? Math.round((new Date(a.end_at).getTime() - new Date(a.start_at).getTime()) / 60_000);
  let end = new Date(input.start.getTime() + duration * 60_000);
  let externalId = a.external_id;
  if (a.provider === 'calcom' && a.external_id && cal.calcom) {
    const b = await calcomReschedule(cal.calcom, a.external_id, input.start).catch((err: unknown) =>
      externalFailure(err, input.start.toISOString()),
    );
    externalId = b.uid;
    if (b.end > b.start) end = new Date(b.end);
  }
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const lead = await findLead(trx, organizationId, a.lead_id, true);
      if (!lead) throw leadNotFound(a.lead_id);
      const current = await findAppointment(trx, organizationId, id);
      if (current?.status !== 'booked')
        throw new DomainError('appointment_not_booked', { detail: `Appointment ${id} is no longer booked` });
      const at = deps.clock.now().toISOString();
      await releaseBlocks(trx, organizationId, id);
      await holdBlocks(trx, organizationId, ownerKey(current.owner_user_id), blocksOf(input.start, end), id);
      const patch = {
        start_at: input.start.toISOString(),
        end_at: end.toISOString(),
        external_id: externalId,
        updated_at: at,
        ...(input.notes !== undefined ? { notes: input.notes } : {}),
      };
      await updateAppointment(trx, organizationId, id, patch);
      const row = { ...current, ...patch };
      await settleReminders(trx, organizationId, id, 'skipped');
      await scheduleReminders(trx, organizationId, cal, lead, row, deps.clock.now());
      await refreshBooked(trx, organizationId, lead, at);
      await emitEvents(trx, organizationId, at, [
        appointmentEvent('appointment.rescheduled', lead, row, { previousStart: current.start_at }),
      ]);
      if (row.provider === 'embedded' && lead.email)
        await enqueueJob(
          trx,
          organizationId,
          'appointment.invite',
          { appointmentId: id, method: 'REQUEST' },
          deps.clock.now(),
          at,
        );
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new SlotTaken(input.start.toISOString());
    throw err;
  }
}

/** Cancels a booked appointment: the slot is free again, the reminders are dropped, the lead's isBooked follows. */
export async function cancelAppointment(
  deps: Deps,
  organizationId: string,
  id: string,
  reason: string | null,
): Promise<AppointmentRow> {
  const a = await loadBooked(deps, organizationId, id);
  const cal = calendarOf(await readSettings(deps.db, organizationId));
  if (a.provider === 'calcom' && a.external_id && cal.calcom) {
    await calcomCancel(cal.calcom, a.external_id, reason ?? 'Cancelled through Parley').catch((err: unknown) =>
      externalFailure(err, a.start_at),
    );
  }
  return endAppointment(deps, organizationId, id, 'cancelled', reason);
}

/** Marks a past (or current) appointment as a no-show and queues the follow-up to the lead. */
export async function markNoShow(deps: Deps, organizationId: string, id: string): Promise<AppointmentRow> {
  const a = await findAppointment(deps.db, organizationId, id);
  if (!a) throw appointmentNotFound(id);
  if (a.status !== 'booked')
    throw new DomainError('appointment_not_booked', {
      detail: `Appointment ${id} is ${a.status === 'no_show' ? 'marked no-show already' : a.status}`,
    });
  if (new Date(a.start_at) > deps.clock.now()) throw new DomainError('not_started');
  return endAppointment(deps, organizationId, id, 'no_show', null);
}

async function endAppointment(
  deps: Deps,
  organizationId: string,
  id: string,
  status: 'cancelled' | 'no_show',
  reason: string | null,
): Promise<AppointmentRow> {
  return deps.db.transaction().execute(async (trx) => {
    const current = await findAppointment(trx, organizationId, id);
    if (!current) throw appointmentNotFound(id);
    const lead = await findLead(trx, organizationId, current.lead_id, true);
    if (!lead) throw leadNotFound(current.lead_id);
    const again = await findAppointment(trx, organizationId, id);
    if (again?.status !== 'booked')
      throw new DomainError('appointment_not_booked', { detail: `Appointment ${id} is no longer booked` });
    const now = deps.clock.now();
    const at = now.toISOString();
    await updateAppointment(trx, organizationId, id, { status, updated_at: at });
    const row: AppointmentRow = { ...again, status, updated_at: at };
    await settleReminders(trx, organizationId, id, 'skipped');
    // A cancelled slot is free for someone else; a no-show's time has passed and keeps its blocks.
    if (status === 'cancelled') await releaseBlocks(trx, organizationId, id);
    await refreshBooked(trx, organizationId, lead, at);
    if (status === 'cancelled') {
      await emitEvents(trx, organizationId, at, [appointmentEvent('appointment.cancelled', lead, row, { reason })]);
      if (row.provider === 'embedded' && lead.email)
        await enqueueJob(trx, organizationId, 'appointment.invite', { appointmentId: id, method: 'CANCEL' }, now, at);
    } else {
      const reminderId = await insertReminder(trx, organizationId, {
        appointmentId: id,
        kind: 'no_show',
        dueAt: at,
        at,
      });
      await enqueueJob(trx, organizationId, 'appointment.remind', { appointmentId: id, reminderId }, now, at);
    }
    return row;
  });
}
