import type { AppointmentRow, ReminderRow } from './appointments.repository.js';
import type { AppointmentView } from './appointments.schemas.js';

export function toAppointmentView(a: AppointmentRow, reminders: ReminderRow[]): AppointmentView {
  return {
    id: a.id,
    leadId: a.lead_id,
    ownerId: a.owner_user_id,
    start: a.start_at,
    end: a.end_at,
    timeZone: a.time_zone,
    status: a.status,
    provider: a.provider,
    externalId: a.external_id,
    notes: a.notes,
    createdByTurnId: a.created_by_turn_id,
    reminders: reminders.map((r) => ({ kind: r.kind, dueAt: r.due_at, status: r.status, messageId: r.message_id })),
    createdAt: a.created_at,
    updatedAt: a.updated_at,
  };
}
