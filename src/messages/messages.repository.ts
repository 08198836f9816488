import type { Insertable, Selectable } from 'kysely';
import { prepared } from '../platform/db/prepared.js';
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
const messagePageQuery = prepared((db: Db, organizationId: string, leadId: string, afterId: string, limit: number) =>
  db.selectFrom('messages').selectAll().where('organization_id', '=', organizationId).where('lead_id', '=', leadId)
    .where('id', '>', afterId).orderBy('id').limit(limit));

export async function listMessages(db: Db, organizationId: string, leadId: string, afterId: string | undefined, limit: number): Promise<MessageRow[]> {
  // The first page is "after ''": every id sorts after the empty string, on the same index range.
  return messagePageQuery(db, organizationId, leadId, afterId ?? '', limit + 1);
}
