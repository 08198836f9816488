import type { Selectable, Updateable } from 'kysely';
import type { AppointmentRemindersTable, AppointmentsTable, Db } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';

export type AppointmentRow = Selectable<AppointmentsTable>;
export type ReminderRow = Selectable<AppointmentRemindersTable>;

/** The organization's own calendar (no owner) holds its blocks under this key. */
export const NO_OWNER = '-';
export const ownerKey = (ownerUserId: string | null) => ownerUserId ?? NO_OWNER;

export async function insertAppointment(db: Db, row: AppointmentRow): Promise<void> {
  await db.insertInto('appointments').values(row).execute();
}

/** Holds the blocks on the owner's calendar; a block held already fails the insert (a unique violation: the slot is taken). */
export async function holdBlocks(
  db: Db,
  organizationId: string,
  owner: string,
  blocks: string[],
  appointmentId: string,
): Promise<void> {
  if (blocks.length === 0) return;
  await db
    .insertInto('appointment_slots')
    .values(
      blocks.map((b) => ({
        organization_id: organizationId,
        owner_key: owner,
        block_start: b,
        appointment_id: appointmentId,
      })),
    )
    .execute();
}

export async function releaseBlocks(db: Db, organizationId: string, appointmentId: string): Promise<void> {
  await db
    .deleteFrom('appointment_slots')
    .where('organization_id', '=', organizationId)
    .where('appointment_id', '=', appointmentId)
    .execute();
}

export async function heldBlocks(
  db: Db,
  organizationId: string,
  owner: string,
  from: string,
  to: string,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('appointment_slots')
    .select('block_start')
    .where('organization_id', '=', organizationId)
    .where('owner_key', '=', owner)
    .where('block_start', '>=', from)
    .where('block_start', '<', to)
    .execute();
  return new Set(rows.map((r) => r.block_start));
}

export async function findAppointment(db: Db, organizationId: string, id: string): Promise<AppointmentRow | undefined> {
  return db
    .selectFrom('appointments')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findByBookingKey(
  db: Db,
  organizationId: string,
  key: string,
): Promise<AppointmentRow | undefined> {
  return db
    .selectFrom('appointments')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('booking_key', '=', key)
    .executeTakeFirst();
}

export async function listLeadAppointments(db: Db, organizationId: string, leadId: string): Promise<AppointmentRow[]> {
  return db
    .selectFrom('appointments')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .orderBy('start_at')
    .orderBy('id')
    .limit(500)
    .execute();
}

export async function listAppointments(
  db: Db,
  organizationId: string,
  f: { from: string; to: string; ownerId?: string },
): Promise<AppointmentRow[]> {
  let q = db
    .selectFrom('appointments')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('start_at', '>=', f.from)
    .where('start_at', '<', f.to);
  if (f.ownerId) q = q.where('owner_user_id', '=', f.ownerId);
  return q.orderBy('start_at').orderBy('id').limit(1000).execute();
}

export async function updateAppointment(
  db: Db,
  organizationId: string,
  id: string,
  patch: Updateable<AppointmentsTable>,
): Promise<void> {
  await db
    .updateTable('appointments')
    .set(patch)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

/** Whether the lead still has a booked appointment that has not ended (leads.is_booked). */
export async function hasUpcoming(db: Db, organizationId: string, leadId: string, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('appointments')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('status', '=', 'booked')
    .where('end_at', '>', now)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertReminder(
  db: Db,
  organizationId: string,
  r: { appointmentId: string; kind: string; dueAt: string; at: string },
): Promise<string> {
  const id = newId();
  await db
    .insertInto('appointment_reminders')
    .values({
      organization_id: organizationId,
      id,
      appointment_id: r.appointmentId,
      kind: r.kind,
      due_at: r.dueAt,
      status: 'pending',
      message_id: null,
      created_at: r.at,
    })
    .execute();
  return id;
}

export async function findReminder(db: Db, organizationId: string, id: string): Promise<ReminderRow | undefined> {
  return db
    .selectFrom('appointment_reminders')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listReminders(db: Db, organizationId: string, appointmentId: string): Promise<ReminderRow[]> {
  return db
    .selectFrom('appointment_reminders')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('appointment_id', '=', appointmentId)
    .orderBy('due_at')
    .execute();
}

/** Pending reminders of an appointment that moved or ended are skipped; only a pending one can end, once. */
export async function settleReminders(
  db: Db,
  organizationId: string,
  appointmentId: string,
  status: 'sent' | 'skipped',
  id?: string,
  messageId?: string,
): Promise<number> {
  let q = db
    .updateTable('appointment_reminders')
    .set({ status, message_id: messageId ?? null })
    .where('organization_id', '=', organizationId)
    .where('appointment_id', '=', appointmentId)
    .where('status', '=', 'pending');
  if (id) q = q.where('id', '=', id);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows);
}
