import type { Insertable, Selectable } from 'kysely';
import type { Db, LeadNotesTable } from '../platform/db/schema.js';

export type NoteRow = Selectable<LeadNotesTable>;

export async function insertNotes(
  db: Db,
  organizationId: string,
  rows: Omit<Insertable<LeadNotesTable>, 'organization_id'>[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('lead_notes')
    .values(rows.map((r) => ({ ...r, organization_id: organizationId })))
    .execute();
}

/** Oldest first: ids are UUIDv7, so id order is creation order (and the index covers it). */
export async function listNotes(db: Db, organizationId: string, leadId: string): Promise<NoteRow[]> {
  return db
    .selectFrom('lead_notes')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .orderBy('id')
    .execute();
}

/** Marks pending commands consumed (by the agent turn that carried them out); a note consumed already stays as it was. */
export async function consumeNotes(db: Db, organizationId: string, ids: readonly string[], at: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('lead_notes')
    .set({ consumed_at: at })
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .where('consumed_at', 'is', null)
    .execute();
}
