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
export async function listConsent(db: Db, organizationId: string, leadId: string, afterId: string | undefined, limit: number): Promise<ConsentRow[]> {
  let q = db.selectFrom('consent_ledger').selectAll().where('organization_id', '=', organizationId).where('lead_id', '=', leadId);
  if (afterId) q = q.where('id', '>', afterId);
  return q.orderBy('id').limit(limit + 1).execute();
}

/** A page of the organization's records in [from, to), oldest first, for the CSV export (streamed page by page). */
export async function consentBetween(db: Db, organizationId: string, from: string, to: string, afterId: string | undefined, limit: number): Promise<ConsentRow[]> {
  let q = db
    .selectFrom('consent_ledger')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('created_at', '>=', from)
    .where('created_at', '<', to);
  if (afterId) q = q.where('id', '>', afterId);
  return q.orderBy('id').limit(limit).execute();
}
