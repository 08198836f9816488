import type { Insertable, Selectable, Updateable } from 'kysely';
import type { CampaignEnrollmentsTable, Db, EnrollmentStatus } from '../platform/db/schema.js';

export type EnrollmentRow = Selectable<CampaignEnrollmentsTable>;
type NewEnrollment = Omit<Insertable<CampaignEnrollmentsTable>, 'organization_id'>;

/** One batch of a snapshot, in statements of 200 rows (11 parameters each: under every driver's limit). */
export async function insertEnrollments(db: Db, organizationId: string, rows: readonly NewEnrollment[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db.insertInto('campaign_enrollments').values(rows.slice(i, i + 200).map((r) => ({ ...r, organization_id: organizationId }))).execute();
  }
}

const ofCampaign = (db: Db, organizationId: string, campaignId: string) =>
  db.selectFrom('campaign_enrollments').where('organization_id', '=', organizationId).where('campaign_id', '=', campaignId);

/** Openings the campaign handed to the send path on one local day: what its daily cap counts. */
export async function countQueuedOn(db: Db, organizationId: string, campaignId: string, day: string): Promise<number> {
  const row = await ofCampaign(db, organizationId, campaignId).select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('queued_day', '=', day).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The next pending enrollments, in lead (= creation) order. */
export async function nextPending(db: Db, organizationId: string, campaignId: string, limit: number): Promise<EnrollmentRow[]> {
  return ofCampaign(db, organizationId, campaignId).selectAll().where('status', '=', 'pending').orderBy('lead_id').limit(limit).execute();
}

/**
 * Moves one enrollment on from `pending` only: the claim. Two runs of a
 * campaign (a stale job, a second worker) can both read a row as pending; only
 * one of them moves it, and only that one acts on it.
 */
export async function settlePending(db: Db, organizationId: string, campaignId: string, leadId: string, patch: Updateable<CampaignEnrollmentsTable>): Promise<boolean> {
  const res = await db.updateTable('campaign_enrollments').set(patch)
    .where('organization_id', '=', organizationId).where('campaign_id', '=', campaignId).where('lead_id', '=', leadId).where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** One group of a campaign's counts: enrollments alike in their own state and in their opening's and message's. */
export interface CountGroup {
  status: EnrollmentStatus;
  reason_code: string | null;
  opening_status: string | null;
  message_status: string | null;
  message_code: string | null;
  n: number;
}

/** The campaign's enrollments grouped by what they and their openings became: a handful of rows however many leads. */
export async function countGroups(db: Db, organizationId: string, campaignId: string): Promise<CountGroup[]> {
  const rows = await db.selectFrom('campaign_enrollments as e')
    .leftJoin('lead_openings as o', (j) => j.onRef('o.organization_id', '=', 'e.organization_id').onRef('o.id', '=', 'e.opening_id'))
    // A template opening's message is on the enrollment, a composed one's on its opening row.
    .leftJoin('messages as m', (j) => j.onRef('m.organization_id', '=', 'e.organization_id')
      .on((eb) => eb('m.id', '=', eb.fn.coalesce('e.message_id', 'o.message_id'))))
    .select(['e.status', 'e.reason_code', 'o.status as opening_status', 'm.status as message_status', 'm.status_code as message_code'])
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('e.organization_id', '=', organizationId).where('e.campaign_id', '=', campaignId)
    .groupBy(['e.status', 'e.reason_code', 'o.status', 'm.status', 'm.status_code'])
    .execute();
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}

/**
 * The lead wrote (or opted out): its enrollments not yet settled otherwise, in
 * every campaign, say so. Answers the campaigns touched.
 */
export async function stopEnrollmentsOfLead(db: Db, organizationId: string, leadId: string, status: 'replied' | 'opted_out', reason: string, at: string): Promise<number> {
  const res = await db.updateTable('campaign_enrollments').set({ status, reason_code: null, reason, updated_at: at })
    .where('organization_id', '=', organizationId).where('lead_id', '=', leadId).where('status', 'in', ['pending', 'queued'])
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** The lead's campaign openings not yet out: recorded blocked with why, never sent. Call under the lead's lock. */
export async function blockQueuedCampaignMessagesOfLead(db: Db, organizationId: string, leadId: string, code: string, reason: string, at: string): Promise<void> {
  await db.updateTable('messages').set({ status: 'blocked', status_code: code, status_reason: reason, updated_at: at })
    .where('organization_id', '=', organizationId).where('lead_id', '=', leadId).where('direction', '=', 'outbound')
    .where('campaign_id', 'is not', null).where('status', '=', 'scheduled')
    .execute();
  await db.updateTable('lead_openings').set({ status: 'skipped', error: reason, updated_at: at })
    .where('organization_id', '=', organizationId).where('lead_id', '=', leadId).where('campaign_id', 'is not', null).where('status', '=', 'composing')
    .execute();
}

/** Enrollments of the campaign whose opening was queued and may not be out yet (message scheduled, or still being composed). */
export async function queuedNotOut(db: Db, organizationId: string, campaignId: string): Promise<EnrollmentRow[]> {
  return db.selectFrom('campaign_enrollments as e')
    .leftJoin('messages as m', (j) => j.onRef('m.organization_id', '=', 'e.organization_id').onRef('m.id', '=', 'e.message_id'))
    .leftJoin('lead_openings as o', (j) => j.onRef('o.organization_id', '=', 'e.organization_id').onRef('o.id', '=', 'e.opening_id'))
    .selectAll('e')
    .where('e.organization_id', '=', organizationId).where('e.campaign_id', '=', campaignId).where('e.status', '=', 'queued')
    .where((eb) => eb.or([eb('m.status', '=', 'scheduled'), eb('o.status', '=', 'composing')]))
    .execute();
}

/**
 * Takes back one queued opening that is not out yet (pause, cancel): its
 * message is recorded blocked, or its composing is skipped, only if still so
 * (the send path may have taken it meanwhile). Call under the lead's lock.
 * Answers whether it was taken back.
 */
export async function takeBackOpening(db: Db, organizationId: string, e: EnrollmentRow, code: string, reason: string, at: string): Promise<boolean> {
  const res = e.message_id
    ? await db.updateTable('messages').set({ status: 'blocked', status_code: code, status_reason: reason, updated_at: at })
      .where('organization_id', '=', organizationId).where('id', '=', e.message_id).where('status', '=', 'scheduled').executeTakeFirst()
    : await db.updateTable('lead_openings').set({ status: 'skipped', error: reason, updated_at: at })
      .where('organization_id', '=', organizationId).where('id', '=', e.opening_id ?? '').where('status', '=', 'composing').executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Sets an enrollment whatever its state (the caller holds the campaign and the lead). */
export async function setEnrollment(db: Db, organizationId: string, campaignId: string, leadId: string, patch: Updateable<CampaignEnrollmentsTable>): Promise<void> {
  await db.updateTable('campaign_enrollments').set(patch)
    .where('organization_id', '=', organizationId).where('campaign_id', '=', campaignId).where('lead_id', '=', leadId).execute();
}

/** Cancel: what was still pending stays unsent for good. */
export async function cancelPending(db: Db, organizationId: string, campaignId: string, at: string): Promise<void> {
  await db.updateTable('campaign_enrollments').set({ status: 'cancelled', reason_code: 'CAMPAIGN_CANCELLED', reason: 'the campaign was cancelled', updated_at: at })
    .where('organization_id', '=', organizationId).where('campaign_id', '=', campaignId).where('status', '=', 'pending').execute();
}
