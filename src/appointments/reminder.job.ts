import type { AppointmentRemindPayload, JobOutcome } from '../jobs/names.js';
import { findLead } from '../lead-records/leads.repository.js';
import { scheduleSend } from '../messages/send.service.js';
import { defaultChannel } from '../lead-records/channels.js';
import type { Deps } from '../platform/deps.js';
import { reachableChannels } from '../lead-records/channels.js';
import { findAppointment, findReminder, settleReminders } from './appointments.repository.js';
import { leadLocale } from './appointments.service.js';
import { slotLabel } from './slots.js';

/** The reminder's words, with the start in the lead's zone and language. */
export function reminderText(firstName: string | null, label: string, kind: string): string {
  const hi = firstName ? `Hi ${firstName}, ` : 'Hi, ';
  if (kind === 'no_show')
    return `${hi}we missed you at our appointment (${label}). Would you like to pick another time?`;
  return `${hi}a reminder of our appointment: ${label}. Reply here if you need to change it.`;
}

/**
 * 'appointment.remind': a reminder (or the no-show follow-up) becomes an
 * outbound message like any other, recorded and scheduled in the lead's
 * transaction, so the compliance gate judges it when it is sent (opt-outs,
 * DNC, contact hours, frequency cap, the external check). A reminder whose
 * appointment moved, ended or was cancelled is skipped; a second run of the
 * job finds its reminder settled and does nothing.
 */
export async function runAppointmentReminder(
  deps: Deps,
  organizationId: string,
  p: AppointmentRemindPayload,
): Promise<JobOutcome> {
  const done: JobOutcome = { kind: 'done' };
  await deps.db.transaction().execute(async (trx) => {
    const a = await findAppointment(trx, organizationId, p.appointmentId);
    if (!a) return;
    const lead = await findLead(trx, organizationId, a.lead_id, true);
    const reminder = await findReminder(trx, organizationId, p.reminderId);
    if (!lead || reminder?.status !== 'pending') return;
    const now = deps.clock.now();
    const wanted = reminder.kind === 'no_show' ? 'no_show' : 'booked';
    if (
      a.status !== wanted ||
      (wanted === 'booked' && new Date(a.start_at) <= now) ||
      reachableChannels(lead).length === 0
    ) {
      await settleReminders(trx, organizationId, a.id, 'skipped', reminder.id);
      return;
    }
    const text = reminderText(lead.first_name, slotLabel(a.start_at, a.time_zone, leadLocale(lead)), reminder.kind);
    const messageId = await scheduleSend(trx, {
      organizationId,
      lead,
      channel: defaultChannel(lead),
      text,
      runAt: now,
      sendWhenOff: true,
      isAiGenerated: false,
      now: now.toISOString(),
    });
    await settleReminders(trx, organizationId, a.id, 'sent', reminder.id, messageId);
  });
  return done;
}
