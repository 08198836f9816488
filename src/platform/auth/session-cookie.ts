import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The console's session cookie, read and written here by hand (one cookie,
 * one attribute set: no cookie library needed). The token is opaque; the
 * server keeps only its SHA-256 digest (users/sessions.service.ts).
 */
const SESSION_COOKIE = 'parley_session';

/** What /v1 needs of a console session; users/ resolves it, app.ts passes the resolver in. */
export interface SessionGrant {
  organizationId: string;
  userId: string;
  scopes: readonly string[];
  csrfToken: string;
}
export type SessionResolver = (token: string) => Promise<SessionGrant | undefined>;

/** The value of the `parley_session` cookie in a Cookie header, or undefined. */
export function sessionToken(header: string | undefined): string | undefined {
  if (!header || header.length > 8192) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/** HttpOnly (no script reads it), SameSite=Strict (no cross-site request carries it), Secure over https. */
export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** Constant-time comparison of an x-csrf-token header with the session's token (digests first: equal lengths). */
export function csrfMatches(expected: string, header: unknown): boolean {
  if (typeof header !== 'string' || header.length === 0 || header.length > 200) return false;
  const a = createHash('sha256').update(header).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export const CSRF_MESSAGE = 'Missing or wrong x-csrf-token header: send the csrfToken from /console/api/session.';

/** Methods that change state and so need the CSRF token when the caller is a session. */
export const changesState = (method: string): boolean => method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
