import { takesRowLocks } from '../platform/db/locks.js';
import { prepared } from '../platform/db/prepared.js';
import type { Db } from '../platform/db/schema.js';

const settingsRow = (db: Db, organizationId: string) => db.selectFrom('organizations').select(['settings', 'sending_number']).where('id', '=', organizationId);
// Read by every opt-out and every send: prepared.
const settingsQuery = prepared(settingsRow);
const settingsLockedQuery = prepared((db: Db, organizationId: string) => settingsRow(db, organizationId).forUpdate());

/** The settings document and sending number; `lock` holds the row until commit, so a read-modify-write of the document never loses a concurrent patch. */
export async function findSettingsRow(db: Db, organizationId: string, lock = false): Promise<{ settings: string; sending_number: string | null } | undefined> {
  const [row] = await (lock && takesRowLocks(db) ? settingsLockedQuery : settingsQuery)(db, organizationId);
  return row;
}

/** The organization's sending number lives in its own unique, indexed column (not the settings document). */
export async function findSendingNumber(db: Db, organizationId: string): Promise<string | null> {
  const row = await db.selectFrom('organizations').select('sending_number').where('id', '=', organizationId).executeTakeFirst();
  return row?.sending_number ?? null;
}

export async function setSendingNumber(db: Db, organizationId: string, sendingNumber: string | null): Promise<void> {
  await db.updateTable('organizations').set({ sending_number: sendingNumber }).where('id', '=', organizationId).execute();
}

/**
 * The organization a number belongs to. Deliberately not tenant-scoped: a
 * provider webhook arrives without a key and names the organization only by
 * the number it was sent to (unique, so the answer is at most one).
 */
export async function findOrganizationIdBySendingNumber(db: Db, sendingNumber: string): Promise<string | undefined> {
  const row = await db.selectFrom('organizations').select('id').where('sending_number', '=', sendingNumber).executeTakeFirst();
  return row?.id;
}
