import type { Insertable, Selectable, Updateable } from 'kysely';
import { countsStatus, noteMessageStatus } from '../analytics-records/recorder.repository.js';
import { prepared } from '../platform/db/prepared.js';
import type { Db, MessagesTable } from '../platform/db/schema.js';

export type MessageRow = Selectable<MessagesTable>;
export type NewMessage = Omit<Insertable<MessagesTable>, 'organization_id'>;

/** The one way a message enters the history (sending, inbound, scheduling all come through here). */
export async function insertMessage(db: Db, organizationId: string, row: NewMessage): Promise<void> {
  await db
    .insertInto('messages')
    .values({ ...row, updated_at: row.updated_at ?? row.created_at, organization_id: organizationId })
    .execute();
}

/**
 * When a status change happened. Callers that know their clock pass `at`;
 * the rest (provider reports, the send path) are stamped with the wall clock.
 */
const changedAt = (at: string | undefined): string => at ?? new Date().toISOString();

/**
 * One page of a lead's history, oldest first. Ids are UUIDv7 (creation order),
 * so `id > after` on the (organization_id, lead_id, id) index costs the same on
 * page 1 and page 1000; fetches limit+1 to know whether more exist.
 */
const messagePageQuery = prepared((db: Db, organizationId: string, leadId: string, afterId: string, limit: number) =>
  db
    .selectFrom('messages')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit),
);

export async function listMessages(
  db: Db,
  organizationId: string,
  leadId: string,
  afterId: string | undefined,
  limit: number,
): Promise<MessageRow[]> {
  // The first page is "after ''": every id sorts after the empty string, on the same index range.
  return messagePageQuery(db, organizationId, leadId, afterId ?? '', limit + 1);
}

/** The same page, of one channel only (the same index range, the channel filtered on it). */
export async function listMessagesOnChannel(
  db: Db,
  organizationId: string,
  leadId: string,
  channel: MessageRow['channel'],
  afterId: string | undefined,
  limit: number,
): Promise<MessageRow[]> {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('id', '>', afterId ?? '')
    .where('channel', '=', channel)
    .orderBy('id')
    .limit(limit + 1)
    .execute();
}

// Read by every send (channels/outbound.ts): prepared.
const messageQuery = prepared((db: Db, organizationId: string, id: string) =>
  db.selectFrom('messages').selectAll().where('organization_id', '=', organizationId).where('id', '=', id),
);

export async function findMessage(db: Db, organizationId: string, id: string): Promise<MessageRow | undefined> {
  const rows = await messageQuery(db, organizationId, id);
  return rows[0];
}

export interface StatusChange {
  status: string;
  reason: string | null;
  /** Why it is blocked or waiting, as a code (compliance/gate.ts); null otherwise. */
  code?: string | null;
  providerMessageId?: string | null;
  /** When a waiting send is now due (the contact window's opening). */
  scheduledAt?: string;
  /** When the change happened (the timeline's updatedAt); the wall clock when absent. */
  at?: string;
  /** Pacing of a pool number (src/sending-numbers/): the segments, the number and the slot it waits for. */
  segments?: number | null;
  sendingNumberId?: string | null;
  pacedUntil?: string | null;
  /** When it first asked for that slot: kept while it takes fresh ones, null when it gives its slot up. */
  pacedSince?: string | null;
  /** A provider call begun (its time and sender) or ended (null, null): channels/outbound.ts. */
  attemptAt?: string | null;
  attemptFrom?: string | null;
  /** The settings number the send goes from (0047): deliverability's per-number rules read it. */
  fromNumber?: string | null;
}

export async function setMessageStatus(
  db: Db,
  organizationId: string,
  id: string,
  change: StatusChange,
): Promise<void> {
  const patch: Updateable<MessagesTable> = {
    status: change.status,
    status_reason: change.reason,
    status_code: change.code ?? null,
    updated_at: changedAt(change.at),
  };
  if (change.providerMessageId !== undefined) patch.provider_message_id = change.providerMessageId;
  if (change.scheduledAt !== undefined) patch.scheduled_at = change.scheduledAt;
  if (change.segments !== undefined) patch.segments = change.segments;
  if (change.sendingNumberId !== undefined) patch.sending_number_id = change.sendingNumberId;
  if (change.pacedUntil !== undefined) patch.paced_until = change.pacedUntil;
  if (change.pacedSince !== undefined) patch.paced_since = change.pacedSince;
  if (change.attemptAt !== undefined) patch.attempt_at = change.attemptAt;
  if (change.attemptFrom !== undefined) patch.attempt_from = change.attemptFrom;
  if (change.fromNumber !== undefined) patch.from_number = change.fromNumber;
  await db
    .updateTable('messages')
    .set(patch)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
  // Analytics (src/analytics/): a send accepted, delivered or failed is counted in the same transaction.
  if (countsStatus(change.status))
    await noteMessageStatus(db, organizationId, { id }, change.status, change.reason, patch.updated_at as string);
}

/**
 * Outbound sends not out yet (`scheduled`), recorded blocked with the reason:
 * never sent. The one way a queued send is stopped; callers narrow it to
 * what they stop (a lead's channels, a campaign's openings).
 */
export function blockScheduledQuery(db: Db, organizationId: string, code: string, reason: string, at?: string) {
  return db
    .updateTable('messages')
    .set({ status: 'blocked', status_code: code, status_reason: reason, updated_at: changedAt(at) })
    .where('organization_id', '=', organizationId)
    .where('direction', '=', 'outbound')
    .where('status', '=', 'scheduled');
}

/**
 * Sends queued for a lead on channels it just opted out of are never sent:
 * each is recorded blocked with the reason (a HELP answer or an AI reply queued
 * before a STOP must not follow it). Answers how many.
 */
export function blockQueuedSendsQuery(
  db: Db,
  organizationId: string,
  leadId: string,
  channels: readonly string[],
  code: string,
  reason: string,
  at?: string,
) {
  return blockScheduledQuery(db, organizationId, code, reason, at)
    .where('lead_id', '=', leadId)
    .where('channel', 'in', channels as MessageRow['channel'][]);
}

/** A provider's delivery report for an outbound message, found by the provider's id; answers how many rows changed. */
export async function setStatusByProviderId(
  db: Db,
  organizationId: string,
  providerMessageId: string,
  status: string,
  reason: string | null,
  at?: string,
): Promise<number> {
  const result = await db
    .updateTable('messages')
    .set({ status, status_reason: reason, updated_at: changedAt(at) })
    .where('organization_id', '=', organizationId)
    .where('provider_message_id', '=', providerMessageId)
    .where('direction', '=', 'outbound')
    .executeTakeFirst();
  if (countsStatus(status))
    await noteMessageStatus(db, organizationId, { providerMessageId }, status, reason, changedAt(at));
  return Number(result.numUpdatedRows);
}

/**
 * The conversation since `since` (memory cleared), newest `limit`, oldest
 * first. Left out: keyword confirmations and HELP answers (compliance, not
 * conversation) and sends that were blocked or failed (the lead never read them).
 */
export async function conversationOf(
  db: Db,
  organizationId: string,
  leadId: string,
  since: string | null,
  limit: number,
): Promise<MessageRow[]> {
  let q = db
    .selectFrom('messages')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where((eb) =>
      eb.or([
        eb('direction', '=', 'inbound'),
        eb.and([eb('purpose', '=', 'conversation'), eb('status', 'not in', ['blocked', 'failed'])]),
      ]),
    );
  if (since) q = q.where('created_at', '>=', since);
  const rows = await q.orderBy('id', 'desc').limit(limit).execute();
  return rows.reverse();
}

/** Which of these provider ids another message of the organization already holds (a reconciled send adopts none of them). */
export async function providerIdsHeldElsewhere(
  db: Db,
  organizationId: string,
  messageId: string,
  providerMessageIds: readonly string[],
): Promise<Set<string>> {
  if (providerMessageIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('messages')
    .select('provider_message_id')
    .where('organization_id', '=', organizationId)
    .where('provider_message_id', 'in', [...providerMessageIds])
    .where('id', '!=', messageId)
    .execute();
  // biome-ignore lint/style/noNonNullAssertion: the query keeps only rows whose provider_message_id is in the given set
  return new Set(rows.map((r) => r.provider_message_id!));
}

/** The A/B opening variant a message was written from (analytics counts the lead's outcomes under it). */
export async function setOpeningVariant(db: Db, organizationId: string, id: string, variant: string): Promise<void> {
  await db
    .updateTable('messages')
    .set({ opening_variant: variant })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}
