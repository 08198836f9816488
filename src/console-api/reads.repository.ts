import type { Db } from '../platform/db/schema.js';

export async function readsOf(
  db: Db,
  organizationId: string,
  userId: string,
  leadIds: readonly string[],
): Promise<Record<string, string>> {
  if (leadIds.length === 0) return {};
  const rows = await db
    .selectFrom('console_reads')
    .select(['lead_id', 'last_read_at'])
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .where('lead_id', 'in', [...leadIds])
    .execute();
  return Object.fromEntries(rows.map((r) => [r.lead_id, r.last_read_at]));
}

export async function markRead(
  db: Db,
  organizationId: string,
  userId: string,
  leadId: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('console_reads')
    .values({ organization_id: organizationId, user_id: userId, lead_id: leadId, last_read_at: at })
    .onConflict((oc) => oc.columns(['organization_id', 'user_id', 'lead_id']).doUpdateSet({ last_read_at: at }))
    .execute();
}
