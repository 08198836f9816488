import type { Db } from '../platform/db/schema.js';

export interface DncRow {
  phone: string;
  source: string;
  created_at: string;
}

export async function phonesOnDnc(db: Db, organizationId: string, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const rows = await db
    .selectFrom('dnc_entries')
    .select('phone')
    .where('organization_id', '=', organizationId)
    .where('phone', 'in', phones)
    .execute();
  return new Set(rows.map((r) => r.phone));
}

/** Answers whether the phone was newly added (false when it was already listed). */
export async function addToDnc(db: Db, organizationId: string, row: DncRow): Promise<boolean> {
  const res = await db
    .insertInto('dnc_entries')
    .values({ ...row, organization_id: organizationId })
    .onConflict((oc) => oc.columns(['organization_id', 'phone']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

export async function removeFromDnc(db: Db, organizationId: string, phone: string): Promise<boolean> {
  const res = await db
    .deleteFrom('dnc_entries')
    .where('organization_id', '=', organizationId)
    .where('phone', '=', phone)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function listDnc(
  db: Db,
  organizationId: string,
  afterPhone: string | undefined,
  limit: number,
): Promise<DncRow[]> {
  let q = db
    .selectFrom('dnc_entries')
    .select(['phone', 'source', 'created_at'])
    .where('organization_id', '=', organizationId);
  if (afterPhone) q = q.where('phone', '>', afterPhone);
  return q
    .orderBy('phone')
    .limit(limit + 1)
    .execute();
}
