import type { Insertable, Selectable } from 'kysely';
import type { Db, UserRole, UsersTable } from '../platform/db/schema.js';

export type UserRow = Selectable<UsersTable>;

export async function insertUser(
  db: Db,
  organizationId: string,
  user: Omit<Insertable<UsersTable>, 'organization_id' | 'disabled_at'>,
): Promise<void> {
  await db
    .insertInto('users')
    .values({ ...user, organization_id: organizationId, disabled_at: null })
    .execute();
}

/** The one lookup not scoped by organization: at sign-in the email is what tells us the organization. */
export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findUser(db: Db, organizationId: string, id: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listUsers(db: Db, organizationId: string): Promise<UserRow[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function setRole(db: Db, organizationId: string, id: string, role: UserRole): Promise<void> {
  await db
    .updateTable('users')
    .set({ role })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

export async function deleteUserRow(db: Db, organizationId: string, id: string): Promise<number> {
  await db
    .deleteFrom('console_reads')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', id)
    .execute();
  // The user's leads and hand-offs are nobody's now (an alert for an ownerless hand-off goes to the admins).
  await db
    .updateTable('leads')
    .set({ owner_id: null })
    .where('organization_id', '=', organizationId)
    .where('owner_id', '=', id)
    .execute();
  await db
    .updateTable('handoffs')
    .set({ owner_id: null })
    .where('organization_id', '=', organizationId)
    .where('owner_id', '=', id)
    .execute();
  const res = await db
    .deleteFrom('users')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
