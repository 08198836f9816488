import { findAppointment } from '../appointments/appointments.repository.js';
import {
  bookAppointment,
  cancelAppointment,
  findSlots,
  leadLocale,
  rescheduleAppointment,
} from '../appointments/appointments.service.js';
import { slotLabel } from '../appointments/slots.js';
import type { LeadRow } from '../lead-records/leads.repository.js';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import type { Action, AgentInput, CalendarToolName, ToolResult } from './provider.js';

export type CalendarAction = Extract<Action, { type: CalendarToolName }>;

export interface ToolCallSite {
  organizationId: string;
  lead: LeadRow;
  input: AgentInput;
  turnId: string;
  step: number;
  call: number;
}

function instant(value: string | undefined, name: string): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new ToolFailure(`${name} is not an ISO 8601 date-time: ${value.slice(0, 40)}`);
  return d;
}

class ToolFailure extends Error {}

/** The lead's own appointment, or a failure the model is told (never another lead's). */
async function ownAppointment(deps: Deps, site: ToolCallSite, id: string) {
  const a = await findAppointment(deps.db, site.organizationId, id);
  if (!a || a.lead_id !== site.lead.id) throw new ToolFailure(`no appointment ${id.slice(0, 100)} for this lead`);
  return a;
}

async function run(deps: Deps, site: ToolCallSite, action: CalendarAction): Promise<unknown> {
  const { organizationId, lead } = site;
  const cal = site.input.calendar;
  if (!cal) throw new ToolFailure('the organization has no calendar: appointments cannot be booked');
  const label = (start: string) => slotLabel(start, cal.timeZone, leadLocale(lead));
  switch (action.type) {
    case 'findSlots':
      return findSlots(deps, organizationId, lead, {
        from: instant(action.from, 'from'),
        to: instant(action.to, 'to'),
      });
    case 'bookAppointment': {
      // Keyed on the turn and the step: the same turn run again (a retried job) books once.
      const a = await bookAppointment(deps, organizationId, lead.id, {
        // biome-ignore lint/style/noNonNullAssertion: bookAppointment's schema requires start, so instant() returns a Date (or throws)
        start: instant(action.start, 'start')!,
        notes: action.notes ?? null,
        bookingKey: `${site.turnId}:${site.step}:${site.call}`,
        turnId: site.turnId,
      });
      return { appointmentId: a.id, start: a.start_at, end: a.end_at, label: label(a.start_at) };
    }
    case 'rescheduleAppointment': {
      const current = await ownAppointment(deps, site, action.appointmentId);
      // biome-ignore lint/style/noNonNullAssertion: rescheduleAppointment's schema requires start, so instant() returns a Date (or throws)
      const start = instant(action.start, 'start')!;
      // Already there (the same turn run again): nothing to move.
      const a =
        current.status === 'booked' && current.start_at === start.toISOString()
          ? current
          : await rescheduleAppointment(deps, organizationId, current.id, { start });
      return { appointmentId: a.id, start: a.start_at, end: a.end_at, label: label(a.start_at) };
    }
    case 'cancelAppointment': {
      const current = await ownAppointment(deps, site, action.appointmentId);
      if (current.status !== 'cancelled')
        await cancelAppointment(deps, organizationId, current.id, action.reason ?? null);
      return { appointmentId: current.id, status: 'cancelled' };
    }
  }
}

/**
 * Runs one calendar tool the model called, within the turn, and answers what
 * it returned or why it failed: a failure (a slot taken meanwhile, a calendar
 * that does not answer) is the model's to handle, never the turn's end.
 */
export async function runCalendarTool(deps: Deps, site: ToolCallSite, action: CalendarAction): Promise<ToolResult> {
  const id = `s${site.step}c${site.call}`;
  try {
    return { id, name: action.type, ok: true, result: await run(deps, site, action) };
  } catch (err) {
    const expected = err instanceof ToolFailure || err instanceof DomainError;
    if (!expected) deps.log.warn({ err, tool: action.type, leadId: site.lead.id }, 'calendar tool failed');
    const message = err instanceof Error ? err.message : String(err);
    const code = err instanceof DomainError ? err.code : 'tool_failed';
    return { id, name: action.type, ok: false, result: { code, message: message.slice(0, 500) } };
  }
}
