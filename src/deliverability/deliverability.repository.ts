import { countsStatus, noteMessageStatus } from '../analytics-records/recorder.repository.js';
import type { SelectQueryBuilder } from 'kysely';
import type { Database, Db } from '../platform/db/schema.js';
import type { ChannelName } from '../lead-records/channels.js';

/** The outbound message a provider's delivery report names, by the provider's id, within the organization. */
export async function findOutboundByProviderId(db: Db, organizationId: string, providerMessageId: string) {
  return db
    .selectFrom('messages')
    .select(['id', 'lead_id'])
    .where('organization_id', '=', organizationId)
    .where('provider_message_id', '=', providerMessageId)
    .where('direction', '=', 'outbound')
    .executeTakeFirst();
}

export interface FailureColumns {
  status: string;
  reason: string | null;
  /** Parley's own status code, when the failure has one (SENDER_UNUSABLE); null otherwise. */
  statusCode?: string | null;
  errorCode: string | null;
  errorClass: string | null;
  at: string;
}

/** A delivery report's outcome on the message, with the provider's error code and its class (0031). */
export async function setDeliveryOutcome(
  db: Db,
  organizationId: string,
  messageId: string,
  c: FailureColumns,
): Promise<void> {
  await db
    .updateTable('messages')
    .set({
      status: c.status,
      status_reason: c.reason,
      status_code: c.statusCode ?? null,
      error_code: c.errorCode,
      error_class: c.errorClass,
      updated_at: c.at,
      attempt_at: null,
      attempt_from: null,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', messageId)
    .execute();
  // Counted by analytics in the same transaction, with the code and class (analytics-records/recorder.repository.ts).
  if (countsStatus(c.status))
    await noteMessageStatus(db, organizationId, { id: messageId }, c.status, c.reason, c.at, {
      code: c.errorCode,
      class: c.errorClass,
    });
}

const unreachableColumns = (c: ChannelName) => ({
  digest: `${c}_unreachable_digest` as const,
  code: `${c}_unreachable_code` as const,
});

/** The lead's address on `channel` (by its keyed digest) cannot receive it, as `code` said. */
export async function markUnreachable(
  db: Db,
  organizationId: string,
  leadId: string,
  channel: ChannelName,
  digest: string,
  code: string,
  at: string,
): Promise<void> {
  const cols = unreachableColumns(channel);
  await db
    .updateTable('leads')
    .set({ [cols.digest]: digest, [cols.code]: code, updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('id', '=', leadId)
    .execute();
}

/**
 * Marks a pool number unusable (the carrier refused it as a sender), found by
 * id or by its number; answers the row when this call marked it (null when it
 * was already marked or is not in the pool).
 */
export async function markNumberUnusable(
  db: Db,
  organizationId: string,
  by: { id: string } | { number: string },
  code: string,
  at: string,
) {
  let q = db
    .updateTable('sending_numbers')
    .set({ unusable_at: at, unusable_code: code, updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('unusable_at', 'is', null);
  q = 'id' in by ? q.where('id', '=', by.id) : q.where('number', '=', by.number);
  return (await q.returning(['id', 'number']).executeTakeFirst()) ?? null;
}

/**
 * The organization's settings number marked unusable (0047), when the number
 * refused is still the setting; answers it when this call marked it (null when
 * it was marked already or the setting has changed since the send).
 */
export async function markSettingsNumberUnusable(
  db: Db,
  organizationId: string,
  number: string,
  code: string,
  at: string,
): Promise<string | null> {
  const row = await db
    .updateTable('organizations')
    .set({ sending_number_unusable_at: at, sending_number_unusable_code: code })
    .where('id', '=', organizationId)
    .where('sending_number', '=', number)
    .where('sending_number_unusable_at', 'is', null)
    .returning('sending_number')
    .executeTakeFirst();
  return row?.sending_number ?? null;
}

/** Whether the number is one of the organization's pool numbers (marked or not). */
export async function inPool(db: Db, organizationId: string, number: string): Promise<boolean> {
  const row = await db
    .selectFrom('sending_numbers')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('number', '=', number)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whose latest sends: a campaign's, a pool number's (by id), or the settings number's (by the number, 0047). */
export type SendsOf = { campaignId: string } | { sendingNumberId: string } | { fromNumber: string };

/** A number's sends: a pool number's by its id, the settings number's by the number it went from (0047). */
function ofNumber<Q extends SelectQueryBuilder<Database, 'messages', object>>(
  q: Q,
  of: Exclude<SendsOf, { campaignId: string }>,
): Q {
  return (
    'sendingNumberId' in of
      ? q.where('sending_number_id', '=', of.sendingNumberId)
      : q.where('from_number', '=', of.fromNumber)
  ) as Q;
}

/**
 * The error classes of the latest `window` sends of a campaign or of a
 * number, newest first: outbound messages handed to the provider (they have
 * its id) or refused by it (they have its error code). One indexed range read
 * (0031; the settings number's through 0047's partial index), only when a
 * filtered report arrives.
 */
export async function latestSendClasses(
  db: Db,
  organizationId: string,
  of: SendsOf,
  window: number,
): Promise<(string | null)[]> {
  let q = db.selectFrom('messages').select('error_class').where('organization_id', '=', organizationId);
  q = 'campaignId' in of ? q.where('campaign_id', '=', of.campaignId) : ofNumber(q, of);
  const rows = await q
    .where('direction', '=', 'outbound')
    .where((eb) => eb.or([eb('provider_message_id', 'is not', null), eb('error_code', 'is not', null)]))
    .orderBy('id', 'desc')
    .limit(window)
    .execute();
  return rows.map((r) => r.error_class);
}

/** Running (or scheduled) campaigns with a message sent from the number among its latest `window` sends. */
export async function campaignsOnNumber(
  db: Db,
  organizationId: string,
  of: Exclude<SendsOf, { campaignId: string }>,
  window: number,
): Promise<string[]> {
  const q = ofNumber(db.selectFrom('messages').select('campaign_id').where('organization_id', '=', organizationId), of);
  const rows = await q.where('campaign_id', 'is not', null).orderBy('id', 'desc').limit(window).execute();
  // biome-ignore lint/style/noNonNullAssertion: the query keeps only rows where campaign_id is not null
  return [...new Set(rows.map((r) => r.campaign_id!))];
}

/** A pool number's E.164, for the sentence and event of a pause. */
export async function numberOf(db: Db, organizationId: string, sendingNumberId: string): Promise<string | null> {
  const row = await db
    .selectFrom('sending_numbers')
    .select('number')
    .where('organization_id', '=', organizationId)
    .where('id', '=', sendingNumberId)
    .executeTakeFirst();
  return row?.number ?? null;
}
