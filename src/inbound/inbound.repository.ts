import type { Insertable } from 'kysely';
import type { Db, UnmatchedInboundTable } from '../platform/db/schema.js';

/** A message from an address no lead holds: kept (never answered), so an operator can see what arrived. */
export async function insertUnmatched(
  db: Db,
  organizationId: string,
  row: Omit<Insertable<UnmatchedInboundTable>, 'organization_id'>,
): Promise<void> {
  await db
    .insertInto('unmatched_inbound')
    .values({ ...row, organization_id: organizationId })
    .execute();
}

/**
 * Records that a provider's delivery (its id, e.g. `twilio:<MessageSid>`) is
 * being processed; false when it was already. In the processing transaction:
 * on PostgreSQL a concurrent claim of the same id waits for this one's commit.
 */
export async function claimReceipt(db: Db, organizationId: string, id: string, at: string): Promise<boolean> {
  const res = await db
    .insertInto('provider_receipts')
    .values({ organization_id: organizationId, id, received_at: at })
    .onConflict((oc) => oc.columns(['organization_id', 'id']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Housekeeping across organizations: receipts older than the retention (a Twilio signature carries no time: a replay older than this is processed again, docs/operations.md). */
export async function purgeReceiptsBefore(db: Db, before: string): Promise<number> {
  const res = await db.deleteFrom('provider_receipts').where('received_at', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}
