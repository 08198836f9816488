import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { withLock } from '../platform/db/locks.js';
import { prepared } from '../platform/db/prepared.js';
import type { Db, SendingNumbersTable } from '../platform/db/schema.js';
import { NotFound } from '../platform/errors.js';
import type { Bucket } from './pacing.js';

export type SendingNumberRow = Selectable<SendingNumbersTable>;
export type PoolChannel = 'sms' | 'voice';

export async function insertSendingNumber(
  db: Db,
  organizationId: string,
  row: Omit<Insertable<SendingNumbersTable>, 'organization_id'>,
): Promise<void> {
  await db
    .insertInto('sending_numbers')
    .values({ ...row, organization_id: organizationId })
    .execute();
}

const numberById = (db: Db, organizationId: string, id: string) =>
  db.selectFrom('sending_numbers').selectAll().where('organization_id', '=', organizationId).where('id', '=', id);
// The send path reads a lead's number on every paced send: prepared, the locked form too (a dialect without row locks compiles it without).
const numberQuery = prepared(numberById);
const lockedNumberQuery = prepared((db: Db, organizationId: string, id: string) =>
  withLock(db, numberById(db, organizationId, id), 'update'),
);

/**
 * `lock` takes the number's row lock (PostgreSQL; SQLite's write lock already
 * serialises every writer): the bucket read-modify-write that follows cannot
 * interleave with another worker's, in this process or another.
 */
export async function findSendingNumber(
  db: Db,
  organizationId: string,
  id: string,
  lock = false,
): Promise<SendingNumberRow | undefined> {
  const rows = await (lock ? lockedNumberQuery : numberQuery)(db, organizationId, id);
  return rows[0];
}

/** Another organization's number is as unknown as a missing one: the same 404. */
export async function requireSendingNumber(
  db: Db,
  organizationId: string,
  id: string,
  lock = false,
): Promise<SendingNumberRow> {
  const row = await findSendingNumber(db, organizationId, id, lock);
  if (!row) throw new NotFound('SendingNumber', 'id', id);
  return row;
}

export async function listSendingNumbers(db: Db, organizationId: string): Promise<SendingNumberRow[]> {
  return db
    .selectFrom('sending_numbers')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('id')
    .execute();
}

// Asked by every send of a lead without a number yet, which is every send of an organization without a pool: prepared.
const poolQuery = prepared((db: Db, organizationId: string, channel: PoolChannel) =>
  db
    .selectFrom('sending_numbers')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('channel', '=', channel)
    .where('unusable_at', 'is', null)
    .orderBy('id'),
);

/** The organization's usable numbers of one channel, oldest first (empty without a pool); one the carrier refused as a sender (0031) is never assigned. */
export async function listPool(db: Db, organizationId: string, channel: PoolChannel): Promise<SendingNumberRow[]> {
  return poolQuery(db, organizationId, channel);
}

export async function updateSendingNumber(
  db: Db,
  organizationId: string,
  id: string,
  patch: Updateable<SendingNumbersTable>,
): Promise<void> {
  await db
    .updateTable('sending_numbers')
    .set(patch)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

/** Leads stuck to it keep its id; their next send finds it gone and picks another (sending-numbers/sender.ts). */
export async function deleteSendingNumber(db: Db, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('sending_numbers').where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

const holdersQuery = prepared((db: Db, number: string) =>
  db
    .selectFrom('organizations')
    .select(['id as organization_id', sql<string>`'settings'`.as('held_as')])
    .where('sending_number', '=', number)
    .unionAll(
      db
        .selectFrom('sending_numbers')
        .select(['organization_id', sql<string>`'pool'`.as('held_as')])
        .where('number', '=', number),
    ),
);

/**
 * The organizations holding a number as their settings number and in their
 * pool, in one statement. Deliberately not tenant-scoped: inbound provider
 * webhooks name the organization only by the number the lead wrote to, and
 * each unique index makes each answer at most one (ownership.ts keeps the two
 * the same organization).
 */
export async function findNumberHolders(db: Db, number: string): Promise<{ settings?: string; pool?: string }> {
  const holders: { settings?: string; pool?: string } = {};
  for (const row of await holdersQuery(db, number)) holders[row.held_as as 'settings' | 'pool'] = row.organization_id;
  return holders;
}

/**
 * Sticks the lead to a number (the caller holds the lead's lock) and counts
 * the lead on the number; answers the number's row as that update left it,
 * under its row lock: the bucket the caller reserves on, without reading it again.
 */
export async function assignLead(
  db: Db,
  organizationId: string,
  leadId: string,
  channel: PoolChannel,
  numberId: string,
): Promise<SendingNumberRow | undefined> {
  const column = channel === 'sms' ? 'sms_sending_number_id' : 'voice_sending_number_id';
  await db
    .updateTable('leads')
    .set({ [column]: numberId })
    .where('organization_id', '=', organizationId)
    .where('id', '=', leadId)
    .execute();
  return db
    .updateTable('sending_numbers')
    .set((eb) => ({ assigned_leads: eb('assigned_leads', '+', 1) }))
    .where('organization_id', '=', organizationId)
    .where('id', '=', numberId)
    .returningAll()
    .executeTakeFirst();
}

const saveBucketQuery = prepared(
  (
    db: Db,
    organizationId: string,
    id: string,
    nextSlotMs: number,
    day: string | null,
    daySegments: number,
    departureMs: number,
  ) =>
    db
      .updateTable('sending_numbers')
      .set({ next_slot_ms: nextSlotMs, day, day_segments: daySegments, departure_ms: departureMs })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id),
);

export async function saveBucket(db: Db, organizationId: string, id: string, bucket: Bucket): Promise<void> {
  await saveBucketQuery(db, organizationId, id, bucket.nextSlotMs, bucket.day, bucket.daySegments, bucket.departureMs);
}

/** Whether `number` is in the organization's pool and the carrier retired it as a sender (unusable_at set). */
export async function isRetiredPoolNumber(db: Db, organizationId: string, number: string): Promise<boolean> {
  const row = await db
    .selectFrom('sending_numbers')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('number', '=', number)
    .where('unusable_at', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}
