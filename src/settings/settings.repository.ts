import { takesRowLocks } from '../platform/db/locks.js';
import { prepared } from '../platform/db/prepared.js';
import type { Db } from '../platform/db/schema.js';

const settingsRow = (db: Db, organizationId: string) =>
  db
    .selectFrom('organizations')
    .select(['settings', 'sending_number', 'sending_number_unusable_at', 'sending_number_unusable_code'])
    .where('id', '=', organizationId);
// Read by every opt-out and every send: prepared.
const settingsQuery = prepared(settingsRow);
const settingsLockedQuery = prepared((db: Db, organizationId: string) => settingsRow(db, organizationId).forUpdate());

/** The settings document and sending number; `lock` holds the row until commit, so a read-modify-write of the document never loses a concurrent patch. */
export async function findSettingsRow(
  db: Db,
  organizationId: string,
  lock = false,
): Promise<
  | {
      settings: string;
      sending_number: string | null;
      sending_number_unusable_at: string | null;
      sending_number_unusable_code: string | null;
    }
  | undefined
> {
  const [row] = await (lock && takesRowLocks(db) ? settingsLockedQuery : settingsQuery)(db, organizationId);
  return row;
}

/** The organization's sending number lives in its own unique, indexed column (not the settings document). */
export async function findSendingNumber(db: Db, organizationId: string): Promise<string | null> {
  const row = await db
    .selectFrom('organizations')
    .select('sending_number')
    .where('id', '=', organizationId)
    .executeTakeFirst();
  return row?.sending_number ?? null;
}

/** A new settings number; a carrier's refusal of the old one (deliverability/, 0047) is not the new one's. */
export async function setSendingNumber(db: Db, organizationId: string, sendingNumber: string | null): Promise<void> {
  await db
    .updateTable('organizations')
    .set({ sending_number: sendingNumber, sending_number_unusable_at: null, sending_number_unusable_code: null })
    .where('id', '=', organizationId)
    .execute();
}

const CHUNK = 500;

/**
 * Sends waiting for contact hours (a pending `message.send` job due later,
 * whose message is `scheduled` with status code CONTACT_HOURS) are made due
 * now, or at the time their sender asked for if that is later, so the worker
 * judges them again against the organization's new hours: a message the new
 * hours allow goes out, one they still forbid waits for the new window's
 * opening. A job a worker holds at this moment is left to it.
 */
export async function releaseWaitingSends(db: Db, organizationId: string, now: string): Promise<number> {
  const jobs = await db
    .selectFrom('jobs')
    .select(['id', 'payload'])
    .where('organization_id', '=', organizationId)
    .where('name', '=', 'message.send')
    .where('status', '=', 'pending')
    .where('run_at', '>', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
    .execute();
  const byMessage = new Map<string, { jobId: string; notBefore: string | undefined }>();
  for (const job of jobs) {
    const payload = JSON.parse(job.payload) as { messageId?: unknown; notBefore?: unknown };
    if (typeof payload.messageId === 'string')
      byMessage.set(payload.messageId, {
        jobId: job.id,
        notBefore: typeof payload.notBefore === 'string' ? payload.notBefore : undefined,
      });
  }
  const messageIds = [...byMessage.keys()];
  const due = new Map<string, string[]>();
  for (let i = 0; i < messageIds.length; i += CHUNK) {
    const waiting = await db
      .selectFrom('messages')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', 'in', messageIds.slice(i, i + CHUNK))
      .where('status', '=', 'scheduled')
      .where('status_code', '=', 'CONTACT_HOURS')
      .execute();
    for (const { id } of waiting) {
      // biome-ignore lint/style/noNonNullAssertion: the query asked only for ids taken from byMessage's keys
      const job = byMessage.get(id)!;
      const at = job.notBefore && job.notBefore > now ? job.notBefore : now;
      due.set(at, [...(due.get(at) ?? []), job.jobId]);
    }
  }
  let released = 0;
  for (const [at, ids] of due) {
    for (let i = 0; i < ids.length; i += CHUNK) {
      const res = await db
        .updateTable('jobs')
        .set({ run_at: at, updated_at: now })
        .where('organization_id', '=', organizationId)
        .where('id', 'in', ids.slice(i, i + CHUNK))
        .where('status', '=', 'pending')
        .executeTakeFirst();
      released += Number(res.numUpdatedRows);
    }
  }
  return released;
}
