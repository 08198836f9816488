import type { Kysely } from 'kysely';
import { inOrganizationNamed, type NewOrganizationOptions } from './organizations.service.js';
import { findOrganizationByName } from './organizations.repository.js';
import type { Database } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';
import { insertKey, listKeys, revokeByPrefix, type ApiKeyRecord } from '../platform/auth/api-keys.repository.js';
import { digestKey, displayPrefix, generateApiKey } from '../platform/auth/keys.js';
import { DEFAULT_SCOPES, type Scope } from '../platform/auth/scopes.js';

export interface IssuedKey {
  key: string;
  prefix: string;
  organizationId: string;
  scopes: Scope[];
}

/** Creates the organization when it does not exist yet, then a key; the plaintext is returned once and never stored. */
export async function issueKey(
  db: Kysely<Database>, orgName: string, scopes: readonly Scope[] = DEFAULT_SCOPES, name: string | null = null, options: NewOrganizationOptions = {},
): Promise<IssuedKey> {
  const at = new Date().toISOString();
  const key = generateApiKey();
  return inOrganizationNamed(db, orgName, at, async (trx, organizationId) => {
    await insertKey(trx, organizationId, { id: newId(), prefix: displayPrefix(key), digest: digestKey(key), scopes: [...scopes], name, createdAt: at });
    return { key, prefix: displayPrefix(key), organizationId, scopes: [...scopes] };
  }, options);
}

export async function keysOf(db: Kysely<Database>, orgName: string): Promise<ApiKeyRecord[] | undefined> {
  const org = await findOrganizationByName(db, orgName);
  return org ? listKeys(db, org.id) : undefined;
}

export async function revokeKey(db: Kysely<Database>, prefix: string, orgName?: string): Promise<number> {
  let orgId: string | undefined;
  if (orgName) {
    const org = await findOrganizationByName(db, orgName);
    if (!org) return 0;
    orgId = org.id;
  }
  return revokeByPrefix(db, orgId, prefix, new Date().toISOString());
}
