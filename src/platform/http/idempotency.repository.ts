import { mentions } from '../db/text.js';
import type { Db } from '../db/schema.js';
import { isUniqueViolation } from '../db/errors.js';

export interface IdempotencyRecord {
  requestHash: string;
  status: 'running' | 'done';
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: string;
  expiresAt: string;
}

export interface NewIdempotencyRecord {
  key: string;
  method: string;
  path: string;
  requestHash: string;
  createdAt: string;
  expiresAt: string;
}

/**
 * Claims a key by inserting its 'running' row. The primary key (organization,
 * key) is the lock: of two simultaneous first requests exactly one insert
 * succeeds. Runs on its own (autocommit), never inside a larger transaction,
 * so the row is visible to every other process at once.
 */
export async function insertRunning(db: Db, organizationId: string, rec: NewIdempotencyRecord): Promise<boolean> {
  try {
    await db
      .insertInto('idempotency_keys')
      .values({
        organization_id: organizationId,
        key: rec.key,
        method: rec.method,
        path: rec.path,
        request_hash: rec.requestHash,
        status: 'running',
        response_status: null,
        response_body: null,
        created_at: rec.createdAt,
        expires_at: rec.expiresAt,
      })
      .execute();
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}

export async function findRecord(db: Db, organizationId: string, key: string): Promise<IdempotencyRecord | undefined> {
  const row = await db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status', 'response_status', 'response_body', 'created_at', 'expires_at'])
    .where('organization_id', '=', organizationId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    requestHash: row.request_hash,
    status: row.status,
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    responseBody: row.response_body,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** Deletes the key's row only if it has expired by `now` (a fresh row of a concurrent request survives). */
export async function deleteIfExpired(db: Db, organizationId: string, key: string, now: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('organization_id', '=', organizationId)
    .where('key', '=', key)
    .where('expires_at', '<=', now)
    .execute();
}

/**
 * Compare-and-swap on `created_at`: a running row is taken over only if it is
 * still the one that was judged abandoned, so of two takers exactly one wins.
 * The new `created_at` then identifies the new owner.
 */
export async function takeOver(
  db: Db,
  organizationId: string,
  key: string,
  staleCreatedAt: string,
  createdAt: string,
  expiresAt: string,
): Promise<boolean> {
  const res = await db
    .updateTable('idempotency_keys')
    .set({ created_at: createdAt, expires_at: expiresAt })
    .where('organization_id', '=', organizationId)
    .where('key', '=', key)
    .where('status', '=', 'running')
    .where('created_at', '=', staleCreatedAt)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Records the answer of the owner (identified by its `created_at`) and closes the row. */
export async function complete(
  db: Db,
  organizationId: string,
  key: string,
  ownerCreatedAt: string,
  responseStatus: number,
  responseBody: string,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status: 'done', response_status: responseStatus, response_body: responseBody })
    .where('organization_id', '=', organizationId)
    .where('key', '=', key)
    .where('status', '=', 'running')
    .where('created_at', '=', ownerCreatedAt)
    .execute();
}

/** Gives the key back (the work failed) so that a retry runs it again. */
export async function release(db: Db, organizationId: string, key: string, ownerCreatedAt: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('organization_id', '=', organizationId)
    .where('key', '=', key)
    .where('status', '=', 'running')
    .where('created_at', '=', ownerCreatedAt)
    .execute();
}

/** Housekeeping across organizations: expired rows answer nothing any more. */
export async function purgeExpired(db: Db, now: string): Promise<number> {
  const res = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(res.numDeletedRows);
}

/**
 * Erasure of a lead: the stored answers that would replay it. Records of its
 * own routes (the path holds its id), and any answer that mentions its id or
 * one of its addresses (a create's `{"id":...}`, an inbound's `leadId`, a 409
 * quoting the phone); `addresses` are its phone and email. A later retry with
 * such a key is a new request: it runs again (a lead route answers 404).
 */
export async function deleteRecordsMentioning(
  db: Db,
  organizationId: string,
  leadId: string,
  addresses: readonly string[],
): Promise<number> {
  const res = await db
    .deleteFrom('idempotency_keys')
    .where('organization_id', '=', organizationId)
    .where((eb) =>
      eb.or([mentions('path', leadId), ...[leadId, ...addresses].map((t) => mentions('response_body', t))]),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
