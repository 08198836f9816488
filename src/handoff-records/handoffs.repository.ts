import type { Selectable, Updateable } from 'kysely';
import type { Db, HandoffsTable, UsersTable } from '../platform/db/schema.js';

export type HandoffRow = Selectable<HandoffsTable>;
export type RepRow = Selectable<UsersTable>;

export async function insertHandoff(
  db: Db,
  organizationId: string,
  row: Omit<HandoffRow, 'organization_id'>,
): Promise<void> {
  await db
    .insertInto('handoffs')
    .values({ ...row, organization_id: organizationId })
    .execute();
}

export async function findHandoff(db: Db, organizationId: string, id: string): Promise<HandoffRow | undefined> {
  return db
    .selectFrom('handoffs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The lead's hand-off that is not closed yet (at most one: a new hand-off of the lead reuses it), newest first. */
export async function findOpenHandoffOfLead(
  db: Db,
  organizationId: string,
  leadId: string,
): Promise<HandoffRow | undefined> {
  return db
    .selectFrom('handoffs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('status', '!=', 'closed')
    .orderBy('raised_at', 'desc')
    .orderBy('id')
    .executeTakeFirst();
}

export async function updateHandoff(
  db: Db,
  organizationId: string,
  id: string,
  patch: Updateable<HandoffsTable>,
): Promise<void> {
  await db
    .updateTable('handoffs')
    .set(patch)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

/** Every rep of the organization with how many hand-offs each holds open and when each was last given one. */
export async function repLoads(
  db: Db,
  organizationId: string,
): Promise<{ owner_id: string; open: number; last_at: string | null }[]> {
  const rows = await db
    .selectFrom('handoffs')
    .select(['owner_id'])
    .select((eb) => [
      eb.fn.sum<number>(eb.case().when('status', '!=', 'closed').then(1).else(0).end()).as('open'),
      eb.fn.max<string>('raised_at').as('last_at'),
    ])
    .where('organization_id', '=', organizationId)
    .where('owner_id', 'is not', null)
    .groupBy('owner_id')
    .execute();
  // biome-ignore lint/style/noNonNullAssertion: the query keeps only rows where owner_id is not null
  return rows.map((r) => ({ owner_id: r.owner_id!, open: Number(r.open ?? 0), last_at: r.last_at ?? null }));
}

/** How many leads each user owns. */
export async function ownedLeadCounts(db: Db, organizationId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('leads')
    .select(['owner_id'])
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('owner_id', 'is not', null)
    .groupBy('owner_id')
    .execute();
  // biome-ignore lint/style/noNonNullAssertion: the query keeps only rows where owner_id is not null
  return new Map(rows.map((r) => [r.owner_id!, Number(r.n)]));
}

export async function listRepRows(db: Db, organizationId: string): Promise<RepRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('disabled_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function findRepRow(db: Db, organizationId: string, id: string): Promise<RepRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateRepRow(
  db: Db,
  organizationId: string,
  id: string,
  patch: Updateable<UsersTable>,
): Promise<void> {
  await db.updateTable('users').set(patch).where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

export async function setLeadOwner(
  db: Db,
  organizationId: string,
  leadId: string,
  ownerId: string | null,
  at: string,
): Promise<void> {
  await db
    .updateTable('leads')
    .set({ owner_id: ownerId, updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('id', '=', leadId)
    .execute();
}

/** The first human touch of the lead's open hand-off, if it has none yet (a human reply, a call). */
export async function recordFirstTouch(
  db: Db,
  organizationId: string,
  leadId: string,
  kind: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('handoffs')
    .set({ first_touch_at: at, first_touch_kind: kind, updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('status', '!=', 'closed')
    .where('first_touch_at', 'is', null)
    .execute();
}

/** Ends the lead's hand-off (the AI is back on). */
export async function closeHandoffsOfLead(db: Db, organizationId: string, leadId: string, at: string): Promise<void> {
  await db
    .updateTable('handoffs')
    .set({ status: 'closed', updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('status', '!=', 'closed')
    .execute();
}

/** Whether this part of an alert (one recipient, one channel) already went out: a retried alert job skips it. */
export async function alertPartSent(db: Db, organizationId: string, key: string): Promise<boolean> {
  return (
    (await db
      .selectFrom('handoff_alerts')
      .select('key')
      .where('organization_id', '=', organizationId)
      .where('key', '=', key)
      .executeTakeFirst()) !== undefined
  );
}

export async function recordAlertPart(db: Db, organizationId: string, key: string, at: string): Promise<void> {
  await db
    .insertInto('handoff_alerts')
    .values({ organization_id: organizationId, key, sent_at: at })
    .onConflict((oc) => oc.columns(['organization_id', 'key']).doNothing())
    .execute();
}

export interface HandoffFilter {
  from?: string;
  to?: string;
  ownerId?: string;
  status?: HandoffsTable['status'];
}

/** Hand-offs with the lead's name (an erased lead takes its hand-offs with it). */
export async function listHandoffRows(
  db: Db,
  organizationId: string,
  f: HandoffFilter,
  limit: number,
): Promise<(HandoffRow & { first_name: string | null; last_name: string | null })[]> {
  let q = db
    .selectFrom('handoffs as h')
    .leftJoin('leads as l', (j) =>
      j.onRef('l.organization_id', '=', 'h.organization_id').onRef('l.id', '=', 'h.lead_id'),
    )
    .selectAll('h')
    .select(['l.first_name', 'l.last_name'])
    .where('h.organization_id', '=', organizationId);
  if (f.from) q = q.where('h.raised_at', '>=', f.from);
  if (f.to) q = q.where('h.raised_at', '<', f.to);
  if (f.ownerId) q = q.where('h.owner_id', '=', f.ownerId);
  if (f.status) q = q.where('h.status', '=', f.status);
  return q.orderBy('h.raised_at', 'desc').orderBy('h.id').limit(limit).execute();
}

export async function leadContact(db: Db, organizationId: string, leadId: string) {
  return db
    .selectFrom('leads')
    .select(['id', 'first_name', 'last_name', 'phone', 'email', 'external_lead_id', 'owner_id'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', leadId)
    .executeTakeFirst();
}
