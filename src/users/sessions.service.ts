import { createHash, randomBytes } from 'node:crypto';
import { isoNow } from '../platform/clock.js';
import type { Deps } from '../platform/deps.js';
import type { UserRole } from '../platform/db/schema.js';
import type { Scope } from '../platform/auth/scopes.js';
import { scopesOfRole } from './roles.js';
import { findSession, insertSession, revokeSession, touchSession } from './sessions.repository.js';

export interface ConsoleSession {
  /** SHA-256 of the cookie's token: the row's id. */
  digest: string;
  organizationId: string;
  organizationName: string;
  userId: string;
  email: string;
  role: UserRole;
  csrfToken: string;
  scopes: readonly Scope[];
}

/** last_seen_at is written at most this often: a busy console costs one write a minute, not one per request. */
const TOUCH_EVERY_MS = 60_000;

const sessionDigest = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Opens a session; the token goes into the cookie and is never stored. */
export async function openSession(
  deps: Deps,
  user: { organization_id: string; id: string },
): Promise<{ token: string; csrfToken: string }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  await insertSession(deps.db, user.organization_id, {
    id: sessionDigest(token),
    user_id: user.id,
    csrf_token: csrfToken,
    created_at: now.toISOString(),
    last_seen_at: now.toISOString(),
    expires_at: new Date(now.getTime() + deps.config.console.sessionMaxAgeMs).toISOString(),
  });
  return { token, csrfToken };
}

/** The live session a cookie's token names, or undefined (unknown, revoked, expired, idle too long, user deleted or disabled). */
export async function resolveSession(deps: Deps, token: string): Promise<ConsoleSession | undefined> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return undefined;
  const row = await findSession(deps.db, sessionDigest(token));
  if (!row || row.revoked_at || row.disabled_at) return undefined;
  const now = deps.clock.now().getTime();
  if (Date.parse(row.expires_at) <= now) return undefined;
  const seen = Date.parse(row.last_seen_at);
  if (seen + deps.config.console.sessionIdleMs <= now) return undefined;
  if (now - seen >= TOUCH_EVERY_MS)
    await touchSession(deps.db, row.organization_id, row.id, new Date(now).toISOString());
  return {
    digest: row.id,
    organizationId: row.organization_id,
    organizationName: row.organization_name,
    userId: row.user_id,
    email: row.email,
    role: row.role,
    csrfToken: row.csrf_token,
    scopes: scopesOfRole(row.role),
  };
}

export async function closeSession(deps: Deps, session: ConsoleSession): Promise<void> {
  await revokeSession(deps.db, session.organizationId, session.digest, isoNow(deps.clock));
}
