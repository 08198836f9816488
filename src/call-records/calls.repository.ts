import type { Insertable, Selectable, Updateable } from 'kysely';
import type { CallsTable, Db } from '../platform/db/schema.js';

export type CallRow = Selectable<CallsTable>;

export async function insertCall(
  db: Db,
  organizationId: string,
  row: Omit<Insertable<CallsTable>, 'organization_id'>,
): Promise<void> {
  await db
    .insertInto('calls')
    .values({ ...row, organization_id: organizationId })
    .execute();
}

export async function findCall(db: Db, organizationId: string, id: string): Promise<CallRow | undefined> {
  return db
    .selectFrom('calls')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findCallBySid(db: Db, organizationId: string, sid: string): Promise<CallRow | undefined> {
  return db
    .selectFrom('calls')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('provider_call_id', '=', sid)
    .executeTakeFirst();
}

export async function updateCall(
  db: Db,
  organizationId: string,
  id: string,
  patch: Updateable<CallsTable>,
): Promise<void> {
  await db.updateTable('calls').set(patch).where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

/**
 * Moves a call's status_code from `from` (null: none yet) to `to`, only if it
 * still is `from`: true for the one caller that did (a conditional update, so
 * two runs racing for the same call cannot both win).
 */
export async function moveCallStatusCode(
  db: Db,
  organizationId: string,
  id: string,
  from: string | null,
  patch: { status_code: string | null; status_reason?: string; updated_at: string },
): Promise<boolean> {
  const r = await db
    .updateTable('calls')
    .set(patch)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('status_code', from === null ? 'is' : '=', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Whether a caller no lead holds got (or is being sent) a missed-call text
 * from the organization since `since`. Such calls have no lead: the timeline
 * index (organization, lead, updated_at) finds them by the time their text
 * was settled.
 */
export async function missedCallTextSince(
  db: Db,
  organizationId: string,
  number: string,
  codes: string[],
  since: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('calls')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('lead_id', 'is', null)
    .where('updated_at', '>=', since)
    .where('from_number', '=', number)
    .where('status_code', 'in', codes)
    .executeTakeFirst();
  return row !== undefined;
}

/** Moves a call's outcome from `from` to `to`, only if it still is `from`: true for the one caller that did. */
export async function moveCallOutcome(
  db: Db,
  organizationId: string,
  id: string,
  from: string,
  to: string,
  at: string,
): Promise<boolean> {
  const r = await db
    .updateTable('calls')
    .set({ outcome: to, updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('outcome', '=', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Sets completed_event_at once: true for the one caller that did (it emits call.completed). */
export async function claimCompletedEvent(db: Db, organizationId: string, id: string, at: string): Promise<boolean> {
  const r = await db
    .updateTable('calls')
    .set({ completed_event_at: at })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('completed_event_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function listCallsOfLead(
  db: Db,
  organizationId: string,
  leadId: string,
  limit: number,
): Promise<CallRow[]> {
  return db
    .selectFrom('calls')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** An utterance of the agent cut short: the stored text becomes what the lead heard. */
export async function setSpokenText(
  db: Db,
  organizationId: string,
  messageId: string,
  text: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('messages')
    .set({ text, updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('id', '=', messageId)
    .execute();
}

export async function profileExists(db: Db, organizationId: string, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('customer_profiles')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('name', '=', name)
    .executeTakeFirst();
  return row !== undefined;
}

export async function findVoiceSettings(
  db: Db,
  organizationId: string,
  profileName: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('profile_voice')
    .select('settings')
    .where('organization_id', '=', organizationId)
    .where('profile_name', '=', profileName)
    .executeTakeFirst();
  return row?.settings;
}

export async function saveVoiceSettings(
  db: Db,
  organizationId: string,
  profileName: string,
  settings: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('profile_voice')
    .values({ organization_id: organizationId, profile_name: profileName, settings, updated_at: at })
    .onConflict((oc) => oc.columns(['organization_id', 'profile_name']).doUpdateSet({ settings, updated_at: at }))
    .execute();
}

/** The call that speaks a message (calls.message_id: an opening, or a message sent as a call), if one was made. */
export async function findCallForMessage(
  db: Db,
  organizationId: string,
  leadId: string,
  messageId: string,
): Promise<{ id: string } | undefined> {
  // By the lead first: calls are indexed by lead (calls_lead_idx), not by message.
  return db
    .selectFrom('calls')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('message_id', '=', messageId)
    .executeTakeFirst();
}
