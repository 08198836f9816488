import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Role, User } from './types.js';

export const SessionContext = createContext<{ user: User; logout: () => void } | null>(null);

export function useSession(): { user: User; logout: () => void } {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a session');
  return s;
}

/** What each role may do; the server enforces the same (the role's scopes), this only hides what would be refused. */
export function can(role: Role, action: 'write' | 'admin'): boolean {
  if (action === 'admin') return role === 'admin';
  return role === 'admin' || role === 'agent';
}

/** Profiles, settings and webhooks need admin-only scopes (profiles:write, settings:write, webhooks:manage). */
export const canAdmin = (role: Role) => can(role, 'admin');
export const canWrite = (role: Role) => can(role, 'write');
