import type { ConsoleSessionsTable, Db, UserRole } from '../platform/db/schema.js';

export type SessionRow = ConsoleSessionsTable;

export interface SessionWithUser extends SessionRow {
  email: string;
  role: UserRole;
  disabled_at: string | null;
  organization_name: string;
}

export async function insertSession(
  db: Db,
  organizationId: string,
  row: Omit<SessionRow, 'organization_id' | 'revoked_at'>,
): Promise<void> {
  await db
    .insertInto('console_sessions')
    .values({ ...row, organization_id: organizationId, revoked_at: null })
    .execute();
}

/**
 * Not scoped by organization: the cookie is what tells us the organization.
 * The user is joined in, so a deleted user's session finds nothing.
 */
export async function findSession(db: Db, digest: string): Promise<SessionWithUser | undefined> {
  return db
    .selectFrom('console_sessions as s')
    .innerJoin('users as u', (j) =>
      j.onRef('u.organization_id', '=', 's.organization_id').onRef('u.id', '=', 's.user_id'),
    )
    .innerJoin('organizations as o', 'o.id', 's.organization_id')
    .selectAll('s')
    .select(['u.email', 'u.role', 'u.disabled_at', 'o.name as organization_name'])
    .where('s.id', '=', digest)
    .executeTakeFirst();
}

export async function touchSession(db: Db, organizationId: string, digest: string, at: string): Promise<void> {
  await db
    .updateTable('console_sessions')
    .set({ last_seen_at: at })
    .where('organization_id', '=', organizationId)
    .where('id', '=', digest)
    .execute();
}

export async function revokeSession(db: Db, organizationId: string, digest: string, at: string): Promise<void> {
  await db
    .updateTable('console_sessions')
    .set({ revoked_at: at })
    .where('organization_id', '=', organizationId)
    .where('id', '=', digest)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function revokeUserSessions(db: Db, organizationId: string, userId: string, at: string): Promise<void> {
  await db
    .updateTable('console_sessions')
    .set({ revoked_at: at })
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}
