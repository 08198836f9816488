import type { Insertable, Selectable, Updateable } from 'kysely';
import type { CallsTable, Db } from '../platform/db/schema.js';

export type CallRow = Selectable<CallsTable>;

export async function insertCall(db: Db, organizationId: string, row: Omit<Insertable<CallsTable>, 'organization_id'>): Promise<void> {
  await db.insertInto('calls').values({ ...row, organization_id: organizationId }).execute();
}

export async function findCall(db: Db, organizationId: string, id: string): Promise<CallRow | undefined> {
  return db.selectFrom('calls').selectAll().where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst();
}

export async function findCallBySid(db: Db, organizationId: string, sid: string): Promise<CallRow | undefined> {
  return db.selectFrom('calls').selectAll().where('organization_id', '=', organizationId).where('provider_call_id', '=', sid).executeTakeFirst();
}

export async function updateCall(db: Db, organizationId: string, id: string, patch: Updateable<CallsTable>): Promise<void> {
  await db.updateTable('calls').set(patch).where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

/** Sets completed_event_at once: true for the one caller that did (it emits call.completed). */
export async function claimCompletedEvent(db: Db, organizationId: string, id: string, at: string): Promise<boolean> {
  const r = await db.updateTable('calls').set({ completed_event_at: at }).where('organization_id', '=', organizationId).where('id', '=', id)
    .where('completed_event_at', 'is', null).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function listCallsOfLead(db: Db, organizationId: string, leadId: string, limit: number): Promise<CallRow[]> {
  return db.selectFrom('calls').selectAll().where('organization_id', '=', organizationId).where('lead_id', '=', leadId)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
