import { DEFAULT_SCOPES, SCOPES, type Scope } from '../platform/auth/scopes.js';
import type { UserRole } from '../platform/db/schema.js';

export const ROLES: readonly UserRole[] = ['viewer', 'agent', 'admin'];

const READ_SCOPES = SCOPES.filter((s) => s.endsWith(':read'));

/**
 * What a console session may do on /v1 (the console contract): a viewer reads,
 * an agent also works leads, sends and adds to the DNC list, an admin has what
 * a default key has (everything but inbound:write, which speaks as a lead).
 */
const ROLE_SCOPES: Record<UserRole, readonly Scope[]> = {
  viewer: READ_SCOPES,
  agent: [...READ_SCOPES, 'leads:write', 'messages:write', 'dnc:write'],
  admin: DEFAULT_SCOPES,
};

export const scopesOfRole = (role: UserRole): readonly Scope[] => ROLE_SCOPES[role];

export const isRole = (value: string): value is UserRole => (ROLES as readonly string[]).includes(value);
