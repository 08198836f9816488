import { sql, type ExpressionBuilder, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { LeadRow } from '../lead-records/leads.repository.js';
import { withLock } from '../platform/db/locks.js';
import { jsonHasScalar } from '../platform/db/json.js';
import type { CampaignStatus, CampaignsTable, Database, Db } from '../platform/db/schema.js';
import { NotFound } from '../platform/errors.js';
import type { CampaignFilterInput } from './campaigns.schemas.js';

export type CampaignRow = Selectable<CampaignsTable>;

export const campaignNotFound = (id: string) => new NotFound('Campaign', 'id', id);

export async function insertCampaign(
  db: Db,
  organizationId: string,
  row: Omit<Insertable<CampaignsTable>, 'organization_id'>,
): Promise<void> {
  await db
    .insertInto('campaigns')
    .values({ ...row, organization_id: organizationId })
    .execute();
}

/** The campaign, `enrolling` ones included (the API hides those: see requireCampaign). */
export async function findCampaign(
  db: Db,
  organizationId: string,
  id: string,
  lock = false,
): Promise<CampaignRow | undefined> {
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
export async function listCampaigns(
  db: Db,
  organizationId: string,
  afterId: string | undefined,
  limit: number,
): Promise<CampaignRow[]> {
  return db
    .selectFrom('campaigns')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('status', '!=', 'enrolling')
    .where('id', '>', afterId ?? '')
    .orderBy('id')
    .limit(limit + 1)
    .execute();
}

/** Moves a campaign on, only from one of `from` (a concurrent change wins once); answers whether it moved. */
export async function updateCampaign(
  db: Db,
  organizationId: string,
  id: string,
  from: readonly CampaignStatus[],
  patch: Updateable<CampaignsTable>,
): Promise<boolean> {
  const res = await db
    .updateTable('campaigns')
    .set(patch)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** A snapshot that could not be finished: its rows go, so the client's view is all or nothing. */
export async function deleteCampaign(db: Db, organizationId: string, id: string): Promise<void> {
  await db
    .deleteFrom('campaign_enrollments')
    .where('organization_id', '=', organizationId)
    .where('campaign_id', '=', id)
    .execute();
  await db.deleteFrom('campaigns').where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

/** Snapshots a crashed process left half-written (older than `before`): never visible, removed by the next creation. */
export async function staleEnrollingCampaigns(db: Db, organizationId: string, before: string): Promise<string[]> {
  const rows = await db
    .selectFrom('campaigns')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'enrolling')
    .where('created_at', '<', before)
    .execute();
  return rows.map((r) => r.id);
}

/** Where a snapshot's reading stands: the last lead read, in (created_at, id) order. */
export interface SnapshotPosition {
  at: string;
  id: string;
}

/** What a snapshot reads of each lead: where it stands in the order, and what the pre-screen (screen.ts) looks at. */
export type SnapshotLead = Pick<
  LeadRow,
  'id' | 'created_at' | 'phone' | 'email' | 'sms_status' | 'voice_status' | 'email_status'
>;

/** The lead carries a tag of one of these names: `tags` asks it once per name, `anyTags` once for all. */
const hasTag = (eb: ExpressionBuilder<Database, 'leads'>, names: readonly string[]) =>
  eb.exists(
    eb
      .selectFrom('lead_tags as t')
      .select('t.id')
      .whereRef('t.organization_id', '=', 'leads.organization_id')
      .whereRef('t.lead_id', '=', 'leads.id')
      .where('t.name', 'in', [...names]),
  );

/**
 * The leads of the organization created no later than `cutoff` that the
 * filter selects, every criterion in SQL (additionalInfo equality too:
 * platform/db/json.ts), after `after` and up to `upTo` in (created_at, id)
 * order: the leads_created_idx key, so the cutoff, the creation range and the
 * position bound one index walk, and a batch costs the same at the first lead
 * and at the 100,000th (in id order with a created_at bound, SQLite walked
 * the index from the start for every batch).
 */
function matching(
  db: Db,
  organizationId: string,
  f: CampaignFilterInput,
  cutoff: string,
  after: SnapshotPosition | undefined,
  upTo?: SnapshotPosition,
) {
  let q = db.selectFrom('leads').where('organization_id', '=', organizationId).where('created_at', '<=', cutoff);
  if (after) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.at, after.id)));
  if (upTo) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<=', eb.tuple(upTo.at, upTo.id)));
  if (f.customerProfile !== undefined) q = q.where('customer_profile', '=', f.customerProfile);
  if (f.createdAfter !== undefined) q = q.where('created_at', '>=', new Date(f.createdAfter).toISOString());
  if (f.createdBefore !== undefined) q = q.where('created_at', '<', new Date(f.createdBefore).toISOString());
  for (const tag of f.tags ?? []) q = q.where((eb) => hasTag(eb, [tag]));
  const anyTags = f.anyTags;
  if (anyTags) q = q.where((eb) => hasTag(eb, anyTags));
  for (const [key, value] of Object.entries(f.additionalInfo ?? {}))
    q = q.where(jsonHasScalar(db, 'leads.additional_info', key, value));
  return q;
}

/** The next `limit` leads of a snapshot after `after`: only the columns the pre-screen needs travel. */
export async function snapshotPage(
  db: Db,
  organizationId: string,
  f: CampaignFilterInput,
  cutoff: string,
  after: SnapshotPosition | undefined,
  limit: number,
): Promise<SnapshotLead[]> {
  return matching(db, organizationId, f, cutoff, after)
    .select(['id', 'created_at', 'phone', 'email', 'sms_status', 'voice_status', 'email_status'])
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Enrolls `pending` the leads of a page snapshotPage read (after `after`, up
 * to `upTo`), but `except` (the caller enrolls those blocked), copied by the
 * database in one statement (INSERT ... SELECT over the same index range): no
 * lead id travels back. A lead that changed between the two statements is
 * judged as it is now; the campaign's run screens every lead again anyway.
 */
export async function enrollPage(
  db: Db,
  organizationId: string,
  campaignId: string,
  f: CampaignFilterInput,
  cutoff: string,
  after: SnapshotPosition | undefined,
  upTo: SnapshotPosition,
  except: readonly string[],
  at: string,
): Promise<void> {
  let page = matching(db, organizationId, f, cutoff, after, upTo);
  if (except.length > 0) page = page.where('id', 'not in', [...except]);
  const none = sql<null>`null`;
  await db
    .insertInto('campaign_enrollments')
    .columns([
      'organization_id',
      'campaign_id',
      'lead_id',
      'status',
      'reason_code',
      'reason',
      'message_id',
      'opening_id',
      'queued_day',
      'created_at',
      'updated_at',
    ])
    .expression(
      page.select((eb) => [
        'organization_id',
        eb.val(campaignId).as('campaign_id'),
        'id',
        eb.val('pending').as('status'),
        none.as('reason_code'),
        none.as('reason'),
        none.as('message_id'),
        none.as('opening_id'),
        none.as('queued_day'),
        eb.val(at).as('created_at'),
        eb.val(at).as('updated_at'),
      ]),
    )
    .execute();
}

/**
 * Whole rows of these leads, in id order; `lock` takes their row locks in
 * that order (one order everywhere: two lockers never deadlock), as a send
 * takes the lead's before its message is judged.
 */
export async function leadsByIds(
  db: Db,
  organizationId: string,
  ids: readonly string[],
  lock = false,
): Promise<LeadRow[]> {
  if (ids.length === 0) return [];
  const q = db
    .selectFrom('leads')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .orderBy('id');
  return withLock(db, q, lock ? 'update' : false).execute();
}
