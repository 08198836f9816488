import type { Db } from '../platform/db/schema.js';

export interface StoredEvent {
  id: string;
  type: string;
  payload: string;
  created_at: string;
}

/** The organization's events after `afterId`, oldest first (the primary key (organization_id, id) serves it). */
export async function eventsAfter(
  db: Db,
  organizationId: string,
  afterId: string,
  limit: number,
): Promise<StoredEvent[]> {
  return db
    .selectFrom('events')
    .select(['id', 'type', 'payload', 'created_at'])
    .where('organization_id', '=', organizationId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
}
