import { forgetLead, noteLeadPatch } from '../analytics-records/recorder.repository.js';
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import { eraseLeadEvents } from '../events/outbox.repository.js';
import { clearJobErrorsMentioning, deleteFinishedJobsOf } from '../jobs/jobs.repository.js';
import { deleteRecordsMentioning as deleteIdempotencyRecordsMentioning } from '../platform/http/idempotency.repository.js';
import { clearDeliveryErrorsMentioning } from '../webhooks/deliveries.repository.js';
import { inArray } from '../platform/db/arrays.js';
import { jsonObjects } from '../platform/db/json.js';
import { takesRowLocks, withLock } from '../platform/db/locks.js';
import { leadNotFound } from '../platform/errors.js';
import { prepared } from '../platform/db/prepared.js';
import type { Db, LeadsTable } from '../platform/db/schema.js';

export type LeadRow = Selectable<LeadsTable>;

/** Answers the stored row, defaults included: what the rest of the creating transaction reads of it. */
export async function insertLead(
  db: Db,
  organizationId: string,
  row: Omit<Insertable<LeadsTable>, 'organization_id'>,
): Promise<LeadRow> {
  return db
    .insertInto('leads')
    .values({ ...row, organization_id: organizationId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Inserts the lead unless its phone is taken, without failing the transaction:
 * a concurrent first message from the same number made it meanwhile (on
 * PostgreSQL the insert waits for that transaction, then does nothing).
 */
export async function insertLeadUnlessTaken(
  db: Db,
  organizationId: string,
  row: Omit<Insertable<LeadsTable>, 'organization_id'>,
): Promise<boolean> {
  const res = await db
    .insertInto('leads')
    .values({ ...row, organization_id: organizationId })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

const leadById = (db: Db, organizationId: string, id: string) =>
  db.selectFrom('leads').selectAll().where('organization_id', '=', organizationId).where('id', '=', id);
const findLeadQuery = prepared(leadById);
const findLeadLockedQuery = prepared((db: Db, organizationId: string, id: string) =>
  leadById(db, organizationId, id).forUpdate(),
);

/** `lock` takes the lead's row lock, so concurrent state changes of one lead serialise (platform/db/locks.ts). */
export async function findLead(db: Db, organizationId: string, id: string, lock = false): Promise<LeadRow | undefined> {
  const rows = await (lock && takesRowLocks(db) ? findLeadLockedQuery : findLeadQuery)(db, organizationId, id);
  return rows[0];
}

const leadOfMessageQuery = prepared((db: Db, organizationId: string, messageId: string) =>
  withLock(
    db,
    db
      .selectFrom('leads')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', (eb) =>
        eb
          .selectFrom('messages')
          .select('messages.lead_id')
          .where('messages.organization_id', '=', organizationId)
          .where('messages.id', '=', messageId),
      ),
    'update',
  ),
);

/**
 * The lead a message is to or from, row-locked, found through the message in
 * one statement (the send path's first read). A message read after it sees
 * whatever a concurrent change of the lead did to the message before
 * releasing the lock; a message's lead never changes, so finding it by the
 * statement's snapshot is safe.
 */
export async function lockLeadOfMessage(
  db: Db,
  organizationId: string,
  messageId: string,
): Promise<LeadRow | undefined> {
  const rows = await leadOfMessageQuery(db, organizationId, messageId);
  return rows[0];
}

/** The lead, or the contract's 404 (`Resource not found: Lead with id <id>`). */
export async function requireLead(db: Db, organizationId: string, id: string, lock = false): Promise<LeadRow> {
  const lead = await findLead(db, organizationId, id, lock);
  if (!lead) throw leadNotFound(id);
  return lead;
}

/** A lead row plus what its API view needs (tags as JSON, DNC flag), in one statement. */
export type LeadViewRow = LeadRow & { tags_json: unknown; on_dnc: unknown };

/**
 * The lead's tags and DNC state as correlated subqueries of the same SELECT:
 * one round trip per read, the hot path of GET /leads/{id} and list pages.
 */
const TAG_FIELDS = [
  ['id', 't.id'],
  ['name', 't.name'],
  ['condition', 't.condition'],
] as const;

export function selectLeadViews(db: Db, organizationId: string) {
  const tags = jsonObjects(
    db,
    TAG_FIELDS,
    sql`from lead_tags t where t.organization_id = leads.organization_id and t.lead_id = leads.id`,
    't.id',
  );
  const onDnc = sql<unknown>`exists(select 1 from dnc_entries d where d.organization_id = leads.organization_id and d.phone = leads.phone)`;
  return db
    .selectFrom('leads')
    .selectAll('leads')
    .select([tags.as('tags_json'), onDnc.as('on_dnc')])
    .where('leads.organization_id', '=', organizationId);
}

const findLeadViewQuery = prepared((db: Db, organizationId: string, id: string) =>
  selectLeadViews(db, organizationId).where('leads.id', '=', id),
);

/** GET /v1/leads/{id}: the hottest read, prepared. */
export async function findLeadView(db: Db, organizationId: string, id: string): Promise<LeadViewRow | undefined> {
  const rows = await findLeadViewQuery(db, organizationId, id);
  return rows[0] as LeadViewRow | undefined;
}

export async function updateLead(
  db: Db,
  organizationId: string,
  id: string,
  patch: Updateable<LeadsTable>,
): Promise<void> {
  await updateLeadQuery(db, organizationId, id, patch).execute();
  // Analytics (src/analytics/): a first reply, hot, qualified or opt-out is counted with the change.
  await noteLeadPatch(db, organizationId, id, patch);
}

/**
 * New activity is a change of the lead: a patch that moves `last_activity_at`
 * without saying `updated_at` moves that too, so `GET /v1/leads?updatedSince=`
 * finds every lead whose activity changed (the reference's incremental sync:
 * poll the list, then read the events of leads whose lastActivityAt moved).
 */
export function updateLeadQuery(db: Db, organizationId: string, id: string, patch: Updateable<LeadsTable>) {
  const set =
    patch.last_activity_at && patch.updated_at === undefined ? { ...patch, updated_at: patch.last_activity_at } : patch;
  return db.updateTable('leads').set(set).where('organization_id', '=', organizationId).where('id', '=', id);
}

export type LeadForChange = LeadRow & { org_settings: string; email_shared: boolean };

/**
 * The lead, row-locked on PostgreSQL, with its organization's settings
 * document (opt-outs need the coupling setting) and whether another lead
 * holds its email (an email opt-out follows the address): one round trip
 * where there were three, while concurrent changes of the lead wait on the lock.
 */
const leadForChangeQuery = prepared((db: Db, organizationId: string, id: string) => {
  const q = db
    .selectFrom('leads')
    .innerJoin('organizations', 'organizations.id', 'leads.organization_id')
    .selectAll('leads')
    .select('organizations.settings as org_settings')
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('leads as other')
            .select('other.id')
            .whereRef('other.organization_id', '=', 'leads.organization_id')
            .whereRef('other.email', '=', 'leads.email')
            .whereRef('other.id', '!=', 'leads.id'),
        )
        .as('email_shared'),
    )
    .where('leads.organization_id', '=', organizationId)
    .where('leads.id', '=', id);
  return withLock(db, q, 'update', 'leads');
});

export async function findLeadForChange(
  db: Db,
  organizationId: string,
  id: string,
): Promise<LeadForChange | undefined> {
  const rows = await leadForChangeQuery(db, organizationId, id);
  const row = rows[0] as (Omit<LeadForChange, 'email_shared'> & { email_shared: unknown }) | undefined;
  // PostgreSQL answers a boolean, SQLite 0 or 1.
  return row && { ...row, email_shared: row.email_shared === true || Number(row.email_shared) === 1 };
}

const leadIdByPhoneQuery = prepared((db: Db, organizationId: string, phone: string) =>
  db.selectFrom('leads').select('id').where('organization_id', '=', organizationId).where('phone', '=', phone),
);

export async function findLeadIdByPhone(db: Db, organizationId: string, phone: string): Promise<string | undefined> {
  const rows = await leadIdByPhoneQuery(db, organizationId, phone);
  return rows[0]?.id;
}

export interface LeadListFilter {
  afterId?: string;
  limit: number;
}

const firstLeadPageQuery = prepared((db: Db, organizationId: string, limit: number) =>
  selectLeadViews(db, organizationId).orderBy('leads.id').limit(limit),
);
const nextLeadPageQuery = prepared((db: Db, organizationId: string, afterId: string, limit: number) =>
  selectLeadViews(db, organizationId).where('leads.id', '>', afterId).orderBy('leads.id').limit(limit),
);

/**
 * GET /v1/leads without filters: a keyset page in id (= creation) order,
 * prepared (the first page and the next ones are two statements, so the
 * planner walks the (organization_id, id) key); fetches limit+1 to know
 * whether more exist.
 */
export async function listLeadViews(db: Db, organizationId: string, f: LeadListFilter): Promise<LeadViewRow[]> {
  const rows = f.afterId
    ? await nextLeadPageQuery(db, organizationId, f.afterId, f.limit + 1)
    : await firstLeadPageQuery(db, organizationId, f.limit + 1);
  return rows as LeadViewRow[];
}

/** Which timestamp a change-feed page is ordered by: `createdAt`, or `updatedAt` (an erased lead's is its erasure). */
export type FeedOrder = 'created' | 'updated';

export interface LeadFeedFilter {
  order: FeedOrder;
  createdSince?: string;
  updatedSince?: string;
  /** The last item of the previous page: its timestamp in `order`, then its id. */
  after?: { at: string; id: string };
  limit: number;
}

/** An erased lead (deleted_leads): when it was created and when it was erased. */
export interface DeletedLeadRow {
  id: string;
  created_at: string;
  deleted_at: string;
}

/** One item of a feed page; `at` is its timestamp in the page's order (an erased lead's updatedAt is its erasure). */
export type FeedItem = { at: string; id: string } & (
  | { deleted: false; row: LeadViewRow }
  | { deleted: true; row: DeletedLeadRow }
);

/**
 * A page of GET /v1/leads with createdSince/updatedSince: the leads and the
 * erased leads (deleted_leads), ordered by (timestamp, id) ascending, keyset
 * after the previous page's last item. Each table gives its own first
 * limit+1 (each walks its (organization, timestamp, id) index) and the two are
 * merged: the union's first limit+1 are among them. The live leads are read
 * first, so a lead erased between the two reads shows up twice (its row, then
 * its erasure: a removal the client applies after) rather than not at all;
 * when both fall among this page's candidates, only the erasure is kept.
 */
export async function listLeadFeed(db: Db, organizationId: string, f: LeadFeedFilter): Promise<FeedItem[]> {
  const column = f.order === 'created' ? 'created_at' : 'updated_at';
  let live = selectLeadViews(db, organizationId);
  if (f.createdSince) live = live.where('leads.created_at', '>=', f.createdSince);
  if (f.updatedSince) live = live.where('leads.updated_at', '>=', f.updatedSince);
  // A row-value comparison: both dialects walk the (organization_id, timestamp, id) index from the position.
  if (f.after) {
    const { at, id } = f.after;
    live = live.where((eb) => eb(eb.refTuple(`leads.${column}`, 'leads.id'), '>', eb.tuple(at, id)));
  }
  const liveRows = (await live
    .orderBy(`leads.${column}`)
    .orderBy('leads.id')
    .limit(f.limit + 1)
    .execute()) as LeadViewRow[];

  const gone = f.order === 'created' ? 'created_at' : 'deleted_at';
  let erased = db
    .selectFrom('deleted_leads')
    .select(['id', 'created_at', 'deleted_at'])
    .where('organization_id', '=', organizationId);
  if (f.createdSince) erased = erased.where('created_at', '>=', f.createdSince);
  if (f.updatedSince) erased = erased.where('deleted_at', '>=', f.updatedSince);
  if (f.after) {
    const { at, id } = f.after;
    erased = erased.where((eb) => eb(eb.refTuple(gone, 'id'), '>', eb.tuple(at, id)));
  }
  const erasedRows = await erased
    .orderBy(gone)
    .orderBy('id')
    .limit(f.limit + 1)
    .execute();

  const items: FeedItem[] = [
    ...liveRows.map((row) => ({ at: row[column], id: row.id, deleted: false as const, row })),
    ...erasedRows.map((row) => ({ at: row[gone], id: row.id, deleted: true as const, row })),
  ];
  const erasedIds = new Set(erasedRows.map((r) => r.id));
  return items
    .filter((item) => item.deleted || !erasedIds.has(item.id))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, f.limit + 1);
}

/**
 * Erasure of a lead: what arrived from its addresses before any lead held them
 * (inbound/inbound.ts stores senders normalised as leads hold them: E.164,
 * lower-case email, so equality finds them). `unmatched_inbound` belongs to
 * inbound/, whose repository would be its door, but a capability may not
 * import inbound/ (.dependency-cruiser.cjs `capabilities-trigger-by-name`),
 * so the lead's erasure holds this one query.
 */
async function deleteUnmatchedInboundFrom(db: Db, organizationId: string, senders: readonly string[]): Promise<void> {
  if (senders.length === 0) return;
  await db
    .deleteFrom('unmatched_inbound')
    .where('organization_id', '=', organizationId)
    .where('sender', 'in', [...senders])
    .execute();
}

/**
 * Erasure (DELETE /v1/leads/{id}), inside the caller's transaction: the lead
 * and everything said with it or about it, wherever it was written, each
 * table through its own repository (unmatched_inbound: see above);
 * test/leads/erasure.test.ts scans every text column of every table afterwards.
 *
 * What stays, on purpose:
 * - `suppressions`: organization, channel, a keyed digest of the address and
 *   the source, so a lead re-created with that address is still opted out;
 * - `consent_ledger`: the lead id and a keyed digest, never a plain address;
 * - `dnc_entries`: the organization's own Do Not Contact list of phone
 *   numbers is the organization's record, not the lead's; it outlives the lead
 *   (and a `doNotContact` event the organization caused without a lead keeps its phone);
 * - ids: a lead id is an opaque UUID, not personal data (event stubs, pending jobs);
 * - `provider_receipts`: the provider's ids of webhooks already processed,
 *   so a replay after the erasure is still refused (inbound/inbound.ts).
 */
export async function deleteLeadData(
  db: Db,
  organizationId: string,
  id: string,
  deletedAt: string,
  keyOf: (address: string) => string,
): Promise<void> {
  const lead = await findLead(db, organizationId, id);
  const addresses = [lead?.phone, lead?.email].filter((a): a is string => !!a);
  // Rejected import rows naming its phone or email (in any cell, any spelling the import reads), by their keyed digests.
  await deleteRejectsNaming(db, organizationId, addresses.map(keyOf));
  for (const table of ['messages', 'lead_tags', 'lead_notes', 'agent_turns', 'handoffs', 'calls'] as const) {
    await db.deleteFrom(table).where('organization_id', '=', organizationId).where('lead_id', '=', id).execute();
  }
  // Its appointments (their notes, times and zone), the blocks they held and their reminders (0029).
  const appointmentIds = db
    .selectFrom('appointments')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', id);
  for (const table of ['appointment_slots', 'appointment_reminders'] as const) {
    await db
      .deleteFrom(table)
      .where('organization_id', '=', organizationId)
      .where('appointment_id', 'in', appointmentIds)
      .execute();
  }
  await db.deleteFrom('appointments').where('organization_id', '=', organizationId).where('lead_id', '=', id).execute();
  // Outbox events keep their rows (deliveries reference them) with the payload reduced to a stub.
  await eraseLeadEvents(db, organizationId, id);
  // Messages from its phone or email that arrived before it was a lead.
  await deleteUnmatchedInboundFrom(db, organizationId, addresses);
  // Stored answers of its routes, or quoting its id or an address.
  await deleteIdempotencyRecordsMentioning(db, organizationId, id, addresses);
  // The queue's finished history about it; error texts quoting its addresses.
  await deleteFinishedJobsOf(db, organizationId, id);
  await clearJobErrorsMentioning(db, organizationId, addresses);
  await clearDeliveryErrorsMentioning(db, organizationId, addresses);
  await db.deleteFrom('leads').where('organization_id', '=', organizationId).where('id', '=', id).execute();
  await forgetLead(db, organizationId, id);
  // What GET /v1/leads shows of it from now on: the id and the times, so a client syncing the list removes it.
  if (lead)
    await db
      .insertInto('deleted_leads')
      .values({ organization_id: organizationId, id, created_at: lead.created_at, deleted_at: deletedAt })
      .execute();
}

export interface TagRow {
  id: string;
  lead_id: string;
  name: string;
  condition: string;
}

export async function listTags(db: Db, organizationId: string, leadIds: string[]): Promise<TagRow[]> {
  if (leadIds.length === 0) return [];
  return db
    .selectFrom('lead_tags')
    .select(['id', 'lead_id', 'name', 'condition'])
    .where('organization_id', '=', organizationId)
    .where('lead_id', 'in', leadIds)
    .orderBy('id')
    .execute();
}

/** A tag of the organization: the same id on every lead that carries it. */
export interface TagDefinition {
  id: string;
  name: string;
  condition: string;
}

/**
 * Puts a tag on a lead. The organization's tag of that name is used when there
 * is one (its id, name and condition), otherwise `tag` becomes it; the id on
 * the lead is the answer. A tag the lead already carries is left as it is.
 */
export async function insertTag(db: Db, organizationId: string, tag: TagRow & { created_at: string }): Promise<string> {
  await db
    .insertInto('tags')
    .values({
      organization_id: organizationId,
      id: tag.id,
      name: tag.name,
      condition: tag.condition,
      created_at: tag.created_at,
    })
    .onConflict((oc) => oc.columns(['organization_id', 'name']).doNothing())
    .execute();
  const known = await db
    .selectFrom('tags')
    .select(['id', 'name', 'condition'])
    .where('organization_id', '=', organizationId)
    .where('name', '=', tag.name)
    .executeTakeFirstOrThrow();
  await db
    .insertInto('lead_tags')
    .values({ organization_id: organizationId, lead_id: tag.lead_id, ...known, created_at: tag.created_at })
    .onConflict((oc) => oc.columns(['organization_id', 'lead_id', 'id']).doNothing())
    .execute();
  return known.id;
}

/** The organization's tags among these ids (an unknown id is simply absent). */
export async function findTagsByIds(db: Db, organizationId: string, ids: readonly string[]): Promise<TagDefinition[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('tags')
    .select(['id', 'name', 'condition'])
    .where('organization_id', '=', organizationId)
    .where('id', 'in', [...ids])
    .orderBy('id')
    .execute();
}

/** Makes `tags` exactly the lead's tags; true when that changed anything. Call under the lead's lock. */
export async function replaceLeadTags(
  db: Db,
  organizationId: string,
  leadId: string,
  tags: readonly TagDefinition[],
  at: string,
): Promise<boolean> {
  const current = new Set((await listTags(db, organizationId, [leadId])).map((t) => t.id));
  const wanted = new Set(tags.map((t) => t.id));
  const stale = [...current].filter((id) => !wanted.has(id));
  const added = tags.filter((t) => !current.has(t.id));
  if (stale.length > 0) await deleteTags(db, organizationId, leadId, stale);
  if (added.length > 0) {
    await db
      .insertInto('lead_tags')
      .values(
        added.map((t) => ({
          organization_id: organizationId,
          lead_id: leadId,
          id: t.id,
          name: t.name,
          condition: t.condition,
          created_at: at,
        })),
      )
      .execute();
  }
  return stale.length > 0 || added.length > 0;
}

export async function deleteTags(db: Db, organizationId: string, leadId: string, tagIds: string[]): Promise<number> {
  if (tagIds.length === 0) return 0;
  const res = await db
    .deleteFrom('lead_tags')
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('id', 'in', tagIds)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** The lead holding an address (a phone for sms and voice, an email), under its row lock. */
export async function findLeadByAddress(
  db: Db,
  organizationId: string,
  channel: 'sms' | 'voice' | 'email',
  address: string,
): Promise<LeadRow | undefined> {
  const q = db
    .selectFrom('leads')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where(channel === 'email' ? 'email' : 'phone', '=', address);
  return withLock(db, q, 'update').executeTakeFirst();
}

/** The other leads holding an email address (an email, unlike a phone, is not unique in an organization), locked. */
export async function otherLeadsWithEmail(
  db: Db,
  organizationId: string,
  email: string,
  exceptId: string,
): Promise<LeadRow[]> {
  const q = db
    .selectFrom('leads')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('email', '=', email)
    .where('id', '!=', exceptId)
    .orderBy('id');
  return withLock(db, q, 'update').execute();
}

/**
 * Erasure: the rejected rows naming any of these addresses, by the keyed
 * digests recorded with them (import_reject_keys), and their keys. Answers
 * how many rows went.
 */
export async function deleteRejectsNaming(db: Db, organizationId: string, digests: readonly string[]): Promise<number> {
  if (digests.length === 0) return 0;
  const named = await db
    .selectFrom('import_reject_keys')
    .select(['import_id', 'row_number'])
    .distinct()
    .where('organization_id', '=', organizationId)
    .where(inArray(db, 'digest', [...new Set(digests)]))
    .execute();
  for (const row of named) {
    await db
      .deleteFrom('import_rejects')
      .where('organization_id', '=', organizationId)
      .where('import_id', '=', row.import_id)
      .where('row_number', '=', row.row_number)
      .execute();
    await db
      .deleteFrom('import_reject_keys')
      .where('organization_id', '=', organizationId)
      .where('import_id', '=', row.import_id)
      .where('row_number', '=', row.row_number)
      .execute();
  }
  return named.length;
}
