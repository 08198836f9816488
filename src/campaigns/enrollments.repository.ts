import type { ExpressionBuilder, Insertable, Selectable, Updateable } from 'kysely';
import { blockScheduledQuery } from '../messages/messages.repository.js';
import { takesRowLocks, withLock } from '../platform/db/locks.js';
import type { CampaignEnrollmentsTable, Database, Db, EnrollmentStatus } from '../platform/db/schema.js';

export type EnrollmentRow = Selectable<CampaignEnrollmentsTable>;
type NewEnrollment = Omit<Insertable<CampaignEnrollmentsTable>, 'organization_id'>;

/** Leads a snapshot enrolls with a reason (blocked), in statements of 200 rows (11 parameters each: under every driver's limit). */
export async function insertEnrollments(db: Db, organizationId: string, rows: readonly NewEnrollment[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('campaign_enrollments')
      .values(rows.slice(i, i + 200).map((r) => ({ ...r, organization_id: organizationId })))
      .execute();
  }
}

const ofCampaign = (db: Db, organizationId: string, campaignId: string) =>
  db
    .selectFrom('campaign_enrollments')
    .where('organization_id', '=', organizationId)
    .where('campaign_id', '=', campaignId);

/** Openings the campaign handed to the send path on one local day: what its daily cap counts. */
export async function countQueuedOn(db: Db, organizationId: string, campaignId: string, day: string): Promise<number> {
  const row = await ofCampaign(db, organizationId, campaignId)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('queued_day', '=', day)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The next pending enrollments, in lead (= creation) order. */
export async function nextPending(
  db: Db,
  organizationId: string,
  campaignId: string,
  limit: number,
): Promise<EnrollmentRow[]> {
  return ofCampaign(db, organizationId, campaignId)
    .selectAll()
    .where('status', '=', 'pending')
    .orderBy('lead_id')
    .limit(limit)
    .execute();
}

/**
 * Moves one enrollment on from `pending` only: the claim. Two runs of a
 * campaign (a stale job, a second worker) can both read a row as pending; only
 * one of them moves it, and only that one acts on it.
 */
export async function settlePending(
  db: Db,
  organizationId: string,
  campaignId: string,
  leadId: string,
  patch: Updateable<CampaignEnrollmentsTable>,
): Promise<boolean> {
  const res = await db
    .updateTable('campaign_enrollments')
    .set(patch)
    .where('organization_id', '=', organizationId)
    .where('campaign_id', '=', campaignId)
    .where('lead_id', '=', leadId)
    .where('status', '=', 'pending')
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
  const rows = await db
    .selectFrom('campaign_enrollments as e')
    .leftJoin('lead_openings as o', (j) =>
      j.onRef('o.organization_id', '=', 'e.organization_id').onRef('o.id', '=', 'e.opening_id'),
    )
    // A template opening's message is on the enrollment, a composed one's on its opening row.
    .leftJoin('messages as m', (j) =>
      j
        .onRef('m.organization_id', '=', 'e.organization_id')
        .on((eb) => eb('m.id', '=', eb.fn.coalesce('e.message_id', 'o.message_id'))),
    )
    .select([
      'e.status',
      'e.reason_code',
      'o.status as opening_status',
      'm.status as message_status',
      'm.status_code as message_code',
    ])
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('e.organization_id', '=', organizationId)
    .where('e.campaign_id', '=', campaignId)
    .groupBy(['e.status', 'e.reason_code', 'o.status', 'm.status', 'm.status_code'])
    .execute();
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}

/**
 * The lead wrote (or opted out): its enrollments not settled otherwise, in
 * every campaign, say so, also one whose opening already went out (it is no
 * longer counted `sent`). A query, so an opt-out can write it with its other
 * writes in one round trip (platform/db/together.ts).
 */
export function stopEnrollmentsQuery(
  db: Db,
  organizationId: string,
  leadId: string,
  status: 'replied' | 'opted_out',
  reason: string,
  at: string,
) {
  return db
    .updateTable('campaign_enrollments')
    .set({ status, reason_code: null, reason, updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('status', 'in', ['pending', 'queued']);
}

/** The same, now; answers how many enrollments it stopped. */
export async function stopEnrollmentsOfLead(
  db: Db,
  organizationId: string,
  leadId: string,
  status: 'replied' | 'opted_out',
  reason: string,
  at: string,
): Promise<number> {
  const res = await stopEnrollmentsQuery(db, organizationId, leadId, status, reason, at).executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** Whose campaign openings not out yet: a lead's in every campaign (it wrote, it opted out), or one campaign's (pause, cancel). */
export type OpeningsOf = { leadId: string } | { campaignId: string };

type EnrollmentsRef = ExpressionBuilder<Database, 'campaign_enrollments'>;

/** The message an enrollment's opening became: on the enrollment for a template, on its opening row for a composed one. */
const openingMessageId = (eb: EnrollmentsRef) =>
  eb.fn.coalesce(
    'campaign_enrollments.message_id',
    eb
      .selectFrom('lead_openings as o')
      .select('o.message_id')
      .whereRef('o.organization_id', '=', 'campaign_enrollments.organization_id')
      .whereRef('o.id', '=', 'campaign_enrollments.opening_id'),
  );

/** The campaign's queued enrollments (the ids of their openings' messages, or of their openings). */
const queuedOf = (db: Db, organizationId: string, campaignId: string) =>
  db
    .selectFrom('campaign_enrollments')
    .where('campaign_enrollments.organization_id', '=', organizationId)
    .where('campaign_enrollments.campaign_id', '=', campaignId)
    .where('campaign_enrollments.status', '=', 'queued');

/**
 * Stops campaign openings not out yet, in a few statements however many:
 * each message still scheduled is recorded blocked with the reason, each
 * opening still being written by the agent is skipped. Call with the leads
 * locked (a send judges its message under its lead's lock): what the send
 * path already took is no longer `scheduled` and stays as it is.
 */
export async function blockQueuedOpenings(
  db: Db,
  organizationId: string,
  of: OpeningsOf,
  code: string,
  reason: string,
  at: string,
): Promise<void> {
  const messages = blockScheduledQuery(db, organizationId, code, reason, at).where('campaign_id', 'is not', null);
  if ('leadId' in of) {
    await messages.where('lead_id', '=', of.leadId).execute();
    await skipComposingOpeningsQuery(db, organizationId, of.leadId, reason, at).execute();
    return;
  }
  await messages
    .where(
      'id',
      'in',
      queuedOf(db, organizationId, of.campaignId).select((eb) => openingMessageId(eb).as('id')),
    )
    .execute();
  await composingOpenings(db, organizationId, reason, at)
    .where('id', 'in', queuedOf(db, organizationId, of.campaignId).select('campaign_enrollments.opening_id'))
    .execute();
}

const composingOpenings = (db: Db, organizationId: string, reason: string, at: string) =>
  db
    .updateTable('lead_openings')
    .set({ status: 'skipped', error: reason, updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('campaign_id', 'is not', null)
    .where('status', '=', 'composing');

/** The lead's campaign openings the agent is still writing are skipped: never scheduled. A query, for an opt-out's batch of writes. */
export function skipComposingOpeningsQuery(db: Db, organizationId: string, leadId: string, reason: string, at: string) {
  return composingOpenings(db, organizationId, reason, at).where('lead_id', '=', leadId);
}

/**
 * Row locks of the leads whose opening in this campaign is queued and not
 * out yet (message scheduled, or being composed), in id order, in one
 * statement. SQLite needs none: its write transaction already excludes the
 * send path.
 */
export async function lockLeadsWithQueuedOpenings(db: Db, organizationId: string, campaignId: string): Promise<void> {
  if (!takesRowLocks(db)) return;
  const queued = queuedOf(db, organizationId, campaignId)
    .leftJoin('lead_openings as o', (j) =>
      j
        .onRef('o.organization_id', '=', 'campaign_enrollments.organization_id')
        .onRef('o.id', '=', 'campaign_enrollments.opening_id'),
    )
    .leftJoin('messages as m', (j) =>
      j
        .onRef('m.organization_id', '=', 'campaign_enrollments.organization_id')
        .on((eb) => eb('m.id', '=', eb.fn.coalesce('campaign_enrollments.message_id', 'o.message_id'))),
    )
    .where((eb) => eb.or([eb('m.status', '=', 'scheduled'), eb('o.status', '=', 'composing')]))
    .select('campaign_enrollments.lead_id');
  const q = db
    .selectFrom('leads')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', queued)
    .orderBy('id');
  await withLock(db, q, 'update').execute();
}

/**
 * The campaign's queued enrollments whose opening blockQueuedOpenings just
 * took back (its message blocked with `code`, or its composing skipped with
 * `reason`: only pause and cancel write those, under the campaign's lock),
 * moved on with `patch` in one statement.
 */
export async function settleTakenBack(
  db: Db,
  organizationId: string,
  campaignId: string,
  code: string,
  reason: string,
  patch: Updateable<CampaignEnrollmentsTable>,
): Promise<void> {
  await db
    .updateTable('campaign_enrollments')
    .set(patch)
    .where('organization_id', '=', organizationId)
    .where('campaign_id', '=', campaignId)
    .where('status', '=', 'queued')
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('messages as m')
            .select('m.id')
            .whereRef('m.organization_id', '=', 'campaign_enrollments.organization_id')
            .where('m.id', '=', openingMessageId(eb))
            .where('m.status', '=', 'blocked')
            .where('m.status_code', '=', code),
        ),
        eb.exists(
          eb
            .selectFrom('lead_openings as o')
            .select('o.id')
            .whereRef('o.organization_id', '=', 'campaign_enrollments.organization_id')
            .whereRef('o.id', '=', 'campaign_enrollments.opening_id')
            .where('o.status', '=', 'skipped')
            .where('o.error', '=', reason),
        ),
      ]),
    )
    .execute();
}

/** Sets an enrollment whatever its state (the caller holds the campaign and the lead). */
export async function setEnrollment(
  db: Db,
  organizationId: string,
  campaignId: string,
  leadId: string,
  patch: Updateable<CampaignEnrollmentsTable>,
): Promise<void> {
  await db
    .updateTable('campaign_enrollments')
    .set(patch)
    .where('organization_id', '=', organizationId)
    .where('campaign_id', '=', campaignId)
    .where('lead_id', '=', leadId)
    .execute();
}

/** Cancel: what was still pending stays unsent for good. */
export async function cancelPending(db: Db, organizationId: string, campaignId: string, at: string): Promise<void> {
  await db
    .updateTable('campaign_enrollments')
    .set({
      status: 'cancelled',
      reason_code: 'CAMPAIGN_CANCELLED',
      reason: 'the campaign was cancelled',
      updated_at: at,
    })
    .where('organization_id', '=', organizationId)
    .where('campaign_id', '=', campaignId)
    .where('status', '=', 'pending')
    .execute();
}
