import type { Insertable, Selectable, Updateable } from 'kysely';
import { withLock, type RowLock } from '../platform/db/locks.js';
import type { CustomerProfilesTable, Db } from '../platform/db/schema.js';

export type ProfileRow = Selectable<CustomerProfilesTable>;

/**
 * `lock`: `update` where the profile is deleted, `share` where a lead is
 * pointed at it, so a delete and a switch to the same profile serialise and no
 * lead is left pointing at a deleted profile.
 */
export async function findProfileByName(
  db: Db,
  organizationId: string,
  name: string,
  lock: RowLock = false,
): Promise<ProfileRow | undefined> {
  const q = db
    .selectFrom('customer_profiles')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('name', '=', name);
  return withLock(db, q, lock).executeTakeFirst();
}

export async function insertProfile(
  db: Db,
  organizationId: string,
  row: Omit<Insertable<CustomerProfilesTable>, 'organization_id'>,
): Promise<void> {
  await db
    .insertInto('customer_profiles')
    .values({ ...row, organization_id: organizationId })
    .execute();
}

export async function updateProfile(
  db: Db,
  organizationId: string,
  name: string,
  patch: Updateable<CustomerProfilesTable>,
): Promise<void> {
  await db
    .updateTable('customer_profiles')
    .set(patch)
    .where('organization_id', '=', organizationId)
    .where('name', '=', name)
    .execute();
}

export async function deleteProfile(db: Db, organizationId: string, name: string): Promise<void> {
  await db
    .deleteFrom('customer_profiles')
    .where('organization_id', '=', organizationId)
    .where('name', '=', name)
    .execute();
}

export async function listProfiles(db: Db, organizationId: string): Promise<ProfileRow[]> {
  return db
    .selectFrom('customer_profiles')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('name')
    .execute();
}

export async function countLeadsUsingProfile(db: Db, organizationId: string, name: string): Promise<number> {
  const row = await db
    .selectFrom('leads')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('organization_id', '=', organizationId)
    .where('customer_profile', '=', name)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
