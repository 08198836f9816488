import { createHash, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../errors.js';

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
function csrfMatches(expected: string, header: unknown): boolean {
  if (typeof header !== 'string' || header.length === 0 || header.length > 200) return false;
  const a = createHash('sha256').update(header).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The 403 of a session's state change without its CSRF token, on /v1 and /console/api alike. */
export const csrfRefused = () => new DomainError('csrf');

/** Methods that change state and so need the CSRF token when the caller is a session. */
const changesState = (method: string): boolean => method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';

/** A request's console session, or why it has none it may use: no live session, or a state change without the CSRF token. */
export type SessionCheck<S> =
  | { session: S; refused?: undefined }
  | { session?: undefined; refused: 'session' | 'csrf' };

/**
 * The one session check, behind /v1 (authenticate.ts) and /console/api
 * (console-api/guard.ts): the live session the cookie's token names and, for a
 * state change, its CSRF token. Each caller answers a refusal its own way
 * (no session: 403 on /v1, 401 on the console's API).
 */
export async function checkSession<S extends { csrfToken: string }>(
  resolve: (token: string) => Promise<S | undefined>,
  token: string | undefined,
  method: string,
  csrfHeader: unknown,
): Promise<SessionCheck<S>> {
  const session = token ? await resolve(token) : undefined;
  if (!session) return { refused: 'session' };
  if (changesState(method) && !csrfMatches(session.csrfToken, csrfHeader)) return { refused: 'csrf' };
  return { session };
}
