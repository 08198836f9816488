import type { Deps } from '../platform/deps.js';
import { DomainError, NotFound } from '../platform/errors.js';
import { isoNow } from '../platform/clock.js';
import { listKeys, revokeByPrefix, type ApiKeyRecord } from '../platform/auth/api-keys.repository.js';
import { CLI_ONLY_SCOPES, DEFAULT_SCOPES, type Scope } from '../platform/auth/scopes.js';
import { addKey } from '../organizations/api-keys.service.js';

export interface KeyView {
  prefix: string;
  name: string | null;
  scopes: string[];
  createdAt: string;
  revokedAt: string | null;
}

const toView = (k: ApiKeyRecord): KeyView => ({
  prefix: k.prefix,
  name: k.name,
  scopes: k.scopes,
  createdAt: k.createdAt,
  revokedAt: k.revokedAt,
});

export async function keysOfOrganization(deps: Deps, organizationId: string): Promise<KeyView[]> {
  return (await listKeys(deps.db, organizationId)).map(toView);
}

/**
 * The plaintext is in the answer once and never stored; without scopes the key
 * gets the default set (as `parley keys create`). A scope only the command line
 * grants is a 400 naming it, and no key is made.
 */
export async function createKey(
  deps: Deps,
  organizationId: string,
  name: string,
  scopes?: Scope[],
): Promise<KeyView & { key: string }> {
  const refused = (scopes ?? []).filter((s) => CLI_ONLY_SCOPES.includes(s));
  if (refused.length > 0) {
    throw new DomainError('scope_cli_only', { scope: String(refused[0]) });
  }
  const { key, record } = await addKey(deps.db, organizationId, scopes ?? DEFAULT_SCOPES, name, isoNow(deps.clock));
  return { key, ...toView(record) };
}

export async function revokeKeyOf(deps: Deps, organizationId: string, prefix: string): Promise<void> {
  const n = await revokeByPrefix(deps.db, organizationId, prefix, isoNow(deps.clock));
  if (n === 0) throw new NotFound('API key', 'name', prefix);
}
