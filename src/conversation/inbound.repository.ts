import type { Insertable } from 'kysely';
import type { Db, UnmatchedInboundTable } from '../platform/db/schema.js';

/** A message from an address no lead holds: kept (never answered), so an operator can see what arrived. */
export async function insertUnmatched(db: Db, organizationId: string, row: Omit<Insertable<UnmatchedInboundTable>, 'organization_id'>): Promise<void> {
  await db.insertInto('unmatched_inbound').values({ ...row, organization_id: organizationId }).execute();
}
