import { type Insertable, type Selectable } from 'kysely';
import type { LeadRow } from '../lead-records/leads.repository.js';
import { inArray, insertRows } from '../platform/db/arrays.js';
import { withLock } from '../platform/db/locks.js';
import type { Db, ImportRejectsTable, ImportsTable, LeadsTable } from '../platform/db/schema.js';

export type ImportRow = Selectable<ImportsTable>;
export type RejectRow = Omit<Selectable<ImportRejectsTable>, 'organization_id' | 'import_id'>;
/** A rejected row as parsed: with the addresses it names (imports/rows.ts addressesIn), which are stored only as keyed digests. */
export type NewReject = RejectRow & { addresses: readonly string[] };
export interface CountDeltas {
  total: number;
  created: number;
  updated: number;
  skipped: number;
  rejected: number;
  warned: number;
}

/** Rows per multi-row INSERT of rejects: well inside SQLite's 32766 bound parameters and PostgreSQL's 65535. */
const INSERT_CHUNK = 500;

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export async function insertImport(
  db: Db,
  organizationId: string,
  row: Omit<Insertable<ImportsTable>, 'organization_id'>,
): Promise<void> {
  await db
    .insertInto('imports')
    .values({ ...row, organization_id: organizationId })
    .execute();
}

export async function findImport(db: Db, organizationId: string, id: string): Promise<ImportRow | undefined> {
  return db
    .selectFrom('imports')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function setImportHeaders(db: Db, organizationId: string, id: string, headers: string[]): Promise<void> {
  await db
    .updateTable('imports')
    .set({ headers: JSON.stringify(headers) })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

/** Adds a batch's counts; in the batch's transaction, so the counts never run ahead of (or behind) what committed. */
export async function addImportCounts(
  db: Db,
  organizationId: string,
  id: string,
  d: CountDeltas,
  at: string,
): Promise<void> {
  await db
    .updateTable('imports')
    .set((eb) => ({
      heartbeat_at: at,
      total: eb('total', '+', d.total),
      created: eb('created', '+', d.created),
      updated: eb('updated', '+', d.updated),
      skipped: eb('skipped', '+', d.skipped),
      rejected: eb('rejected', '+', d.rejected),
      warned: eb('warned', '+', d.warned),
    }))
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

/** The running process's sign of life, between batches (a batch may wait long for SQLite's lock). */
export async function beatImport(db: Db, organizationId: string, id: string, at: string): Promise<void> {
  await db
    .updateTable('imports')
    .set({ heartbeat_at: at })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('status', '=', 'running')
    .execute();
}

/** Ends a running import once (a second finish changes nothing). */
export async function finishImport(
  db: Db,
  organizationId: string,
  id: string,
  status: 'completed' | 'failed',
  error: string | null,
  at: string,
): Promise<void> {
  await db
    .updateTable('imports')
    .set({ status, error: error ? error.slice(0, 1000) : null, finished_at: at })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('status', '=', 'running')
    .execute();
}

/** Rejected rows (and rows imported with warnings) and the keyed digest of each address they name (`keys`), which is how an erasure finds them. */
export async function insertRejects(
  db: Db,
  organizationId: string,
  importId: string,
  rows: readonly RejectRow[],
  keys: readonly { row_number: number; digest: string }[],
): Promise<void> {
  for (const part of chunks(rows, INSERT_CHUNK)) {
    // A re-read row number (never within one import) is left as first recorded.
    await db
      .insertInto('import_rejects')
      .values(
        part.map((r) => ({
          organization_id: organizationId,
          import_id: importId,
          row_number: r.row_number,
          raw: r.raw,
          reason: r.reason,
          warnings: r.warnings,
        })),
      )
      .onConflict((oc) => oc.columns(['organization_id', 'import_id', 'row_number']).doNothing())
      .execute();
  }
  for (const part of chunks(keys, INSERT_CHUNK)) {
    await db
      .insertInto('import_reject_keys')
      .values(
        part.map((k) => ({
          organization_id: organizationId,
          import_id: importId,
          row_number: k.row_number,
          digest: k.digest,
        })),
      )
      .onConflict((oc) => oc.columns(['organization_id', 'import_id', 'row_number', 'digest']).doNothing())
      .execute();
  }
}

/** A page of an import's rejects in row order, after `afterRow`. */
export async function listRejects(
  db: Db,
  organizationId: string,
  importId: string,
  afterRow: number,
  limit: number,
): Promise<RejectRow[]> {
  return db
    .selectFrom('import_rejects')
    .select(['row_number', 'raw', 'reason', 'warnings'])
    .where('organization_id', '=', organizationId)
    .where('import_id', '=', importId)
    .where('row_number', '>', afterRow)
    .orderBy('row_number')
    .limit(limit)
    .execute();
}

/**
 * The leads holding any of these phones, emails or external ids, in id
 * (creation) order: a statement per kind of key, its values bound as one
 * array (platform/db/arrays.ts) and probed on its index (organization_id,
 * phone | email | external_lead_id). One statement OR-ing the three would
 * save two round trips on PostgreSQL, but SQLite's planner then walks every
 * lead of the organization.
 */
export async function findLeadsByKeys(
  db: Db,
  organizationId: string,
  keys: { phones: readonly string[]; emails: readonly string[]; externalIds: readonly string[] },
  lock: boolean,
): Promise<LeadRow[]> {
  const found = new Map<string, LeadRow>();
  for (const [column, values] of [
    ['phone', keys.phones],
    ['email', keys.emails],
    ['external_lead_id', keys.externalIds],
  ] as const) {
    if (values.length === 0) continue;
    const q = db
      .selectFrom('leads')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where(inArray(db, column, [...new Set(values)]));
    // PostgreSQL: the matched leads stay as read until the batch commits (an API update waits).
    for (const row of await withLock(db, q, lock ? 'update' : false).execute()) found.set(row.id, row);
  }
  return [...found.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export async function insertLeads(
  db: Db,
  organizationId: string,
  rows: readonly Omit<Insertable<LeadsTable>, 'organization_id'>[],
): Promise<void> {
  await insertRows(
    db,
    'leads',
    rows.map((r) => ({ ...r, organization_id: organizationId })),
  );
}

/** Which of these leads ever had an opening made (any profile, any outcome): the import greets a lead at most once. */
export async function leadsWithOpenings(
  db: Db,
  organizationId: string,
  leadIds: readonly string[],
): Promise<Set<string>> {
  if (leadIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('lead_openings')
    .select('lead_id')
    .distinct()
    .where('organization_id', '=', organizationId)
    .where(inArray(db, 'lead_id', leadIds))
    .execute();
  return new Set(rows.map((r) => r.lead_id));
}
