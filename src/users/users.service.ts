import type { Kysely } from 'kysely';
import { DomainError, NotFound } from '../platform/errors.js';
import { isoNow } from '../platform/clock.js';
import type { Deps } from '../platform/deps.js';
import { isUniqueViolation } from '../platform/db/errors.js';
import type { Database, Db, UserRole } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';
import { inOrganizationNamed } from '../organizations/organizations.service.js';
import { decoyHash, generatePassword, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
import {
  deleteUserRow,
  findUser,
  findUserByEmail,
  insertUser,
  listUsers,
  setRole,
  type UserRow,
} from './users.repository.js';
import { revokeUserSessions } from './sessions.repository.js';

export interface UserView {
  id: string;
  email: string;
  role: UserRole;
  organizationId: string;
  createdAt: string;
}

export const toUserView = (
  row: Pick<UserRow, 'id' | 'email' | 'role' | 'organization_id' | 'created_at'>,
): UserView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  organizationId: row.organization_id,
  createdAt: row.created_at,
});

export const normalizeEmail = (email: string): string => email.trim().toLowerCase();

const userNotFound = (id: string) => new NotFound('User', 'id', id);

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new DomainError('bad_request', {
      detail: `The password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
    });
  if (password.length > 1024)
    throw new DomainError('bad_request', { detail: 'The password must be at most 1024 characters.' });
}

/** Creates a user; without a password, one is generated and returned (shown once, never stored in clear). */
export async function createUser(
  db: Db,
  organizationId: string,
  input: { email: string; role: UserRole; password?: string },
  at: string,
): Promise<{ user: UserView; password: string }> {
  const email = normalizeEmail(input.email);
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320)
    throw new DomainError('bad_request', { detail: 'email must be an email address.' });
  const password = input.password ?? generatePassword();
  checkPassword(password);
  const row = { id: newId(), email, role: input.role, password_hash: await hashPassword(password), created_at: at };
  try {
    await insertUser(db, organizationId, row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new DomainError('conflict', { detail: 'A user with this email already exists.' });
    throw err;
  }
  return { user: toUserView({ ...row, organization_id: organizationId }), password };
}

/** The CLI's `users create`: the organization is made when new, as `keys create` does. */
export async function createUserInOrganization(
  db: Kysely<Database>,
  orgName: string,
  input: { email: string; role: UserRole; password?: string },
): Promise<{ user: UserView; password: string }> {
  const at = new Date().toISOString();
  // A refused user (a taken email) leaves no new organization behind.
  return inOrganizationNamed(db, orgName, at, (trx, organizationId) => createUser(trx, organizationId, input, at));
}

/** The user behind an email and password, or undefined; an unknown email costs a hash too, so timing tells nothing. */
export async function authenticateUser(deps: Deps, email: string, password: string): Promise<UserRow | undefined> {
  const row = await findUserByEmail(deps.db, normalizeEmail(email));
  const ok = await verifyPassword(password, row?.password_hash ?? (await decoyHash()));
  return ok && row && !row.disabled_at ? row : undefined;
}

export async function usersOf(deps: Deps, organizationId: string): Promise<UserView[]> {
  return (await listUsers(deps.db, organizationId)).map(toUserView);
}

/** An admin may not change their own role nor delete themselves: the organization would be one step from having no admin. */
function notSelf(actingUserId: string, id: string, what: string): void {
  if (actingUserId === id)
    throw new DomainError('conflict', { detail: `You cannot ${what} yourself; ask another admin.` });
}

export async function changeRole(
  deps: Deps,
  organizationId: string,
  actingUserId: string,
  id: string,
  role: UserRole,
): Promise<UserView> {
  notSelf(actingUserId, id, 'change the role of');
  const row = await findUser(deps.db, organizationId, id);
  if (!row) throw userNotFound(id);
  await setRole(deps.db, organizationId, id, role);
  return toUserView({ ...row, role });
}

/** Deletes the user (the email may be used again) and revokes every session they hold. */
export async function deleteUser(deps: Deps, organizationId: string, actingUserId: string, id: string): Promise<void> {
  notSelf(actingUserId, id, 'delete');
  await deps.db.transaction().execute(async (trx) => {
    const removed = await deleteUserRow(trx, organizationId, id);
    if (removed === 0) throw userNotFound(id);
    await revokeUserSessions(trx, organizationId, id, isoNow(deps.clock));
  });
}
