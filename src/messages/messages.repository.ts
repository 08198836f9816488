import type { Insertable, Selectable } from 'kysely';
import type { Db, MessagesTable } from '../platform/db/schema.js';

export type MessageRow = Selectable<MessagesTable>;
export type NewMessage = Omit<Insertable<MessagesTable>, 'organization_id'>;

/** The one way a message enters the history (sending, inbound, scheduling all come through here). */
export async function insertMessage(db: Db, organizationId: string, row: NewMessage): Promise<void> {
  await db.insertInto('messages').values({ ...row, organization_id: organizationId }).execute();
}

/**
 * One page of a lead's history, oldest first. Ids are UUIDv7 (creation order),
 * so `id > after` on the (organization_id, lead_id, id) index costs the same on
 * page 1 and page 1000; fetches limit+1 to know whether more exist.
 */
export async function listMessages(db: Db, organizationId: string, leadId: string, afterId: string | undefined, limit: number): Promise<MessageRow[]> {
  let q = db.selectFrom('messages').selectAll().where('organization_id', '=', organizationId).where('lead_id', '=', leadId);
  if (afterId) q = q.where('id', '>', afterId);
  return q.orderBy('id').limit(limit + 1).execute();
}
