import type { Insertable, Selectable } from 'kysely';
import type { ConsentLedgerTable, Db } from '../platform/db/schema.js';

export type ConsentRow = Selectable<ConsentLedgerTable>;
export type NewConsent = Omit<Insertable<ConsentLedgerTable>, 'organization_id'>;

/**
 * Appends consent records (never updated, never deleted: an erased lead's
 * rows keep only its id and the address digest). Unexecuted, so an opt-out
 * sends it with its other writes (platform/db/together.ts).
 */
export function consentInsert(db: Db, organizationId: string, rows: NewConsent[]) {
  return db.insertInto('consent_ledger').values(rows.map((r) => ({ ...r, organization_id: organizationId })));
}

/** One lead's records, oldest first, keyset by id (UUIDv7: time order). */
export async function listConsent(
  db: Db,
  organizationId: string,
  leadId: string,
  afterId: string | undefined,
  limit: number,
): Promise<ConsentRow[]> {
  let q = db
    .selectFrom('consent_ledger')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId);
  if (afterId) q = q.where('id', '>', afterId);
  return q
    .orderBy('id')
    .limit(limit + 1)
    .execute();
}

/** A page of the organization's records in [from, to), oldest first, for the CSV export (streamed page by page). */
export async function consentBetween(
  db: Db,
  organizationId: string,
  from: string,
  to: string,
  afterId: string | undefined,
  limit: number,
): Promise<ConsentRow[]> {
  let q = db
    .selectFrom('consent_ledger')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to);
  if (afterId) q = q.where('id', '>', afterId);
  return q.orderBy('id').limit(limit).execute();
}

/**
 * What a person reads for the actors `key:<key id>` and `key:session:<user id>`: the key's prefix and name as the
 * API keys page shows them, or the console user's email. Actors of other kinds, and keys or users since removed,
 * have no label. One query per kind, for a page of records.
 */
export async function actorLabels(
  db: Db,
  organizationId: string,
  actors: readonly (string | null)[],
): Promise<Map<string, string>> {
  const keyIds = new Set<string>();
  const userIds = new Set<string>();
  for (const a of actors) {
    if (!a?.startsWith('key:')) continue;
    if (a.startsWith('key:session:')) userIds.add(a.slice('key:session:'.length));
    else keyIds.add(a.slice('key:'.length));
  }
  const labels = new Map<string, string>();
  if (keyIds.size > 0) {
    const keys = await db
      .selectFrom('api_keys')
      .select(['id', 'prefix', 'name'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', [...keyIds])
      .execute();
    for (const k of keys) labels.set(`key:${k.id}`, `key ${k.prefix}…${k.name ? ` (${k.name})` : ''}`);
  }
  if (userIds.size > 0) {
    const users = await db
      .selectFrom('users')
      .select(['id', 'email'])
      .where('organization_id', '=', organizationId)
      .where('id', 'in', [...userIds])
      .execute();
    for (const u of users) labels.set(`key:session:${u.id}`, u.email);
  }
  return labels;
}
