import type { Kysely } from 'kysely';
import { inOrganizationNamed, type NewOrganizationOptions } from './organizations.service.js';
import { findOrganizationByName } from './organizations.repository.js';
import type { Database, Db } from '../platform/db/schema.js';
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

/**
 * A new key of the organization, each scope once: the plaintext is returned
 * once and never stored (only its SHA-256 digest). `parley keys create` and
 * the console's key page both come here.
 */
export async function addKey(
  db: Db,
  organizationId: string,
  scopes: readonly Scope[],
  name: string | null,
  at: string,
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey();
  const record = {
    id: newId(),
    prefix: displayPrefix(key),
    digest: digestKey(key),
    scopes: [...new Set(scopes)],
    name,
    createdAt: at,
  };
  await insertKey(db, organizationId, record);
  return { key, record: { ...record, organizationId, revokedAt: null } };
}

/** Creates the organization when it does not exist yet, then a key. */
export async function issueKey(
  db: Kysely<Database>,
  orgName: string,
  scopes: readonly Scope[] = DEFAULT_SCOPES,
  name: string | null = null,
  options: NewOrganizationOptions = {},
): Promise<IssuedKey> {
  const at = new Date().toISOString();
  return inOrganizationNamed(
    db,
    orgName,
    at,
    async (trx, organizationId) => {
      const { key, record } = await addKey(trx, organizationId, scopes, name, at);
      return { key, prefix: record.prefix, organizationId, scopes: record.scopes as Scope[] };
    },
    options,
  );
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
