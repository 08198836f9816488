import type { Db } from '../db/schema.js';

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  prefix: string;
  digest: string;
  scopes: string[];
  name: string | null;
  createdAt: string;
  revokedAt: string | null;
}

const toRecord = (r: {
  id: string;
  organization_id: string;
  prefix: string;
  digest: string;
  scopes: string;
  name: string | null;
  created_at: string;
  revoked_at: string | null;
}): ApiKeyRecord => ({
  id: r.id,
  organizationId: r.organization_id,
  prefix: r.prefix,
  digest: r.digest,
  scopes: r.scopes.split(' ').filter(Boolean),
  name: r.name,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/** The one lookup that is not scoped by organization: the key is what tells us the organization. */
export async function findActiveKeyByDigest(db: Db, digest: string): Promise<ApiKeyRecord | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('digest', '=', digest)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row ? toRecord(row) : undefined;
}

export async function insertKey(
  db: Db,
  organizationId: string,
  key: Omit<ApiKeyRecord, 'organizationId' | 'revokedAt'>,
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: key.id,
      organization_id: organizationId,
      prefix: key.prefix,
      digest: key.digest,
      scopes: key.scopes.join(' '),
      name: key.name,
      created_at: key.createdAt,
      revoked_at: null,
    })
    .execute();
}

export async function listKeys(db: Db, organizationId: string): Promise<ApiKeyRecord[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .execute();
  return rows.map(toRecord);
}

/** Revokes every active key whose display prefix matches; answers how many. */
export async function revokeByPrefix(
  db: Db,
  organizationId: string | undefined,
  prefix: string,
  at: string,
): Promise<number> {
  let q = db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('prefix', '=', prefix)
    .where('revoked_at', 'is', null);
  if (organizationId) q = q.where('organization_id', '=', organizationId);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}
