import type { Insertable, Selectable, Updateable } from 'kysely';
import type { LeadRow } from '../leads/leads.repository.js';
import { withLock } from '../platform/db/locks.js';
import type { CampaignStatus, CampaignsTable, Db } from '../platform/db/schema.js';
import { NotFound } from '../platform/errors.js';
import type { CampaignFilterInput } from './campaigns.schemas.js';

export type CampaignRow = Selectable<CampaignsTable>;

export const campaignNotFound = (id: string) => new NotFound('Campaign', 'id', id);

export async function insertCampaign(db: Db, organizationId: string, row: Omit<Insertable<CampaignsTable>, 'organization_id'>): Promise<void> {
  await db.insertInto('campaigns').values({ ...row, organization_id: organizationId }).execute();
}

/** The campaign, `enrolling` ones included (the API hides those: see requireCampaign). */
export async function findCampaign(db: Db, organizationId: string, id: string, lock = false): Promise<CampaignRow | undefined> {
  const q = db.selectFrom('campaigns').selectAll().where('organization_id', '=', organizationId).where('id', '=', id);
  return withLock(db, q, lock ? 'update' : false).executeTakeFirst();
}

/** A campaign the API may show: one still being enrolled does not exist yet for a client. */
export async function requireCampaign(db: Db, organizationId: string, id: string, lock = false): Promise<CampaignRow> {
  const row = await findCampaign(db, organizationId, id, lock);
  if (!row || row.status === 'enrolling') throw campaignNotFound(id);
  return row;
}

/** A keyset page in id (= creation) order, limit+1 rows. */
export async function listCampaigns(db: Db, organizationId: string, afterId: string | undefined, limit: number): Promise<CampaignRow[]> {
  return db.selectFrom('campaigns').selectAll().where('organization_id', '=', organizationId).where('status', '!=', 'enrolling')
    .where('id', '>', afterId ?? '').orderBy('id').limit(limit + 1).execute();
}

/** Moves a campaign on, only from one of `from` (a concurrent change wins once); answers whether it moved. */
export async function updateCampaign(db: Db, organizationId: string, id: string, from: readonly CampaignStatus[], patch: Updateable<CampaignsTable>): Promise<boolean> {
  const res = await db.updateTable('campaigns').set(patch).where('organization_id', '=', organizationId).where('id', '=', id)
    .where('status', 'in', [...from]).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** A snapshot that could not be finished: its rows go, so the client's view is all or nothing. */
export async function deleteCampaign(db: Db, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('campaign_enrollments').where('organization_id', '=', organizationId).where('campaign_id', '=', id).execute();
  await db.deleteFrom('campaigns').where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

/** Snapshots a crashed process left half-written (older than `before`): never visible, removed by the next creation. */
export async function staleEnrollingCampaigns(db: Db, organizationId: string, before: string): Promise<string[]> {
  const rows = await db.selectFrom('campaigns').select('id').where('organization_id', '=', organizationId)
    .where('status', '=', 'enrolling').where('created_at', '<', before).execute();
  return rows.map((r) => r.id);
}

/** Where a snapshot's reading stands: the last lead read, in (created_at, id) order. */
export interface SnapshotPosition {
  at: string;
  id: string;
}

/**
 * The next leads of a snapshot after `after`, in (created_at, id) order,
 * created no later than `cutoff`, that the filter's SQL-side criteria select
 * (tags, profile, creation range). The order is the leads_created_idx key, so
 * each batch starts where the last one ended and the cutoff and the creation
 * range bound the same index walk: a batch costs the same at the first lead
 * and at the 100,000th (in id order with a created_at bound, SQLite walked
 * the index from the start for every batch). additionalInfo equality is
 * judged by the caller on each row.
 */
export async function leadsMatching(db: Db, organizationId: string, f: CampaignFilterInput, cutoff: string, after: SnapshotPosition | undefined, limit: number): Promise<LeadRow[]> {
  let q = db.selectFrom('leads').selectAll().where('organization_id', '=', organizationId).where('created_at', '<=', cutoff);
  if (after) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.at, after.id)));
  if (f.customerProfile !== undefined) q = q.where('customer_profile', '=', f.customerProfile);
  if (f.createdAfter !== undefined) q = q.where('created_at', '>=', new Date(f.createdAfter).toISOString());
  if (f.createdBefore !== undefined) q = q.where('created_at', '<', new Date(f.createdBefore).toISOString());
  for (const tag of f.tags ?? []) {
    q = q.where((eb) => eb.exists(eb.selectFrom('lead_tags as t').select('t.id')
      .whereRef('t.organization_id', '=', 'leads.organization_id').whereRef('t.lead_id', '=', 'leads.id').where('t.name', '=', tag)));
  }
  if (f.anyTags) {
    const names = [...f.anyTags];
    q = q.where((eb) => eb.exists(eb.selectFrom('lead_tags as t').select('t.id')
      .whereRef('t.organization_id', '=', 'leads.organization_id').whereRef('t.lead_id', '=', 'leads.id').where('t.name', 'in', names)));
  }
  return q.orderBy('created_at').orderBy('id').limit(limit).execute();
}

/** Leads' row locks in id order (one order everywhere, so two lockers never deadlock), before changing their queued messages. */
export async function lockLeads(db: Db, organizationId: string, leadIds: readonly string[]): Promise<void> {
  const sorted = [...new Set(leadIds)].sort();
  for (let i = 0; i < sorted.length; i += 500) {
    const q = db.selectFrom('leads').select('id').where('organization_id', '=', organizationId).where('id', 'in', sorted.slice(i, i + 500)).orderBy('id');
    await withLock(db, q, 'update').execute();
  }
}
