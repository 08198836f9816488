import { mentions } from '../platform/db/text.js';
import { sql, type Insertable, type Selectable, type SqlBool, type Updateable } from 'kysely';
import { lockDisabled } from './endpoints.repository.js';
import { byKeys, claimDue, type ClaimSpread, type RowKey } from '../platform/db/claim.js';
import type { Db, WebhookDeliveriesTable } from '../platform/db/schema.js';

export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export async function insertDeliveries(db: Db, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  // Chunked: SQLite caps bound parameters per statement.
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('webhook_deliveries')
      .values(rows.slice(i, i + 200))
      .execute();
}

export async function findDelivery(
  db: Db,
  organizationId: string,
  endpointId: string,
  id: string,
): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Newest first: the latest attempts are what an operator looks for. */
export async function listDeliveries(
  db: Db,
  organizationId: string,
  endpointId: string,
  beforeId: string | undefined,
  limit: number,
  filter: { status?: string; eventType?: string; leadId?: string } = {},
): Promise<DeliveryRow[]> {
  let q = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('endpoint_id', '=', endpointId);
  if (beforeId) q = q.where('id', '<', beforeId);
  if (filter.status) q = q.where('status', '=', filter.status as DeliveryRow['status']);
  if (filter.eventType) q = q.where('event_type', '=', filter.eventType);
  // Its event's lead, copied onto the delivery (0045): read through the endpoint's index by lead.
  if (filter.leadId) q = q.where('lead_id', '=', filter.leadId.toLowerCase());
  return q
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();
}

/** A claimed delivery with what its attempt needs: its event (null if gone) and its endpoint (null if deleted). */
export interface DeliveryWork extends DeliveryRow {
  event: { id: string; type: string; payload: string; created_at: string } | null;
  endpoint: { id: string; url: string; secret: string; enabled: number } | null;
}

/** A scalar subquery of the claim's RETURNING: one column of the delivery's event or endpoint, by primary key. */
const column = (table: 'events' | 'webhook_endpoints', key: 'event_id' | 'endpoint_id', name: string, alias: string) =>
  sql`(select x.${sql.ref(name)} from ${sql.table(table)} x where x.organization_id = webhook_deliveries.organization_id and x.id = webhook_deliveries.${sql.ref(key)})`.as(
    alias,
  );

const WITH_EVENT_AND_ENDPOINT = [
  column('events', 'event_id', 'id', 'e_id'),
  column('events', 'event_id', 'type', 'e_type'),
  column('events', 'event_id', 'payload', 'e_payload'),
  column('events', 'event_id', 'created_at', 'e_created_at'),
  column('webhook_endpoints', 'endpoint_id', 'id', 'w_id'),
  column('webhook_endpoints', 'endpoint_id', 'url', 'w_url'),
  column('webhook_endpoints', 'endpoint_id', 'secret', 'w_secret'),
  column('webhook_endpoints', 'endpoint_id', 'enabled', 'w_enabled'),
];

type Claimed = DeliveryRow & {
  e_id: string | null;
  e_type: string | null;
  e_payload: string | null;
  e_created_at: string | null;
  w_id: string | null;
  w_url: string | null;
  w_secret: string | null;
  w_enabled: number | string | null;
};

/**
 * Leases due deliveries to this worker (platform/db/claim.ts), spread over
 * endpoints, and returns them with their events and endpoints from the same
 * statement (primary-key probes in its RETURNING): one round trip per batch,
 * where a claim and its reads took six.
 */
export async function claimDueDeliveries(
  db: Db,
  now: string,
  leaseUntil: string,
  limit: number,
  spread: ClaimSpread,
): Promise<DeliveryWork[]> {
  const rows = (await claimDue(db, 'webhook_deliveries', 'next_attempt_at', now, leaseUntil, limit, {
    spread,
    also: WITH_EVENT_AND_ENDPOINT,
  })) as unknown as Claimed[];
  return rows.map(({ e_id, e_type, e_payload, e_created_at, w_id, w_url, w_secret, w_enabled, ...d }) => ({
    ...d,
    // biome-ignore lint/style/noNonNullAssertion: the event's columns are NOT NULL: with e_id set (a joined event row), they are set too
    event: e_id === null ? null : { id: e_id, type: e_type!, payload: e_payload!, created_at: e_created_at! },
    // biome-ignore lint/style/noNonNullAssertion: the endpoint's columns are NOT NULL: with w_id set (a joined endpoint row), they are set too
    endpoint: w_id === null ? null : { id: w_id, url: w_url!, secret: w_secret!, enabled: Number(w_enabled) },
  }));
}

/**
 * Delivery outcomes, many rows per statement: one round trip per kind of outcome, not per delivery.
 * `answer` (one JSON line) is appended to each row's answers in the same statement.
 */
export async function updateDeliveries(
  db: Db,
  keys: readonly RowKey[],
  patch: Updateable<WebhookDeliveriesTable>,
  answer?: string,
): Promise<void> {
  const set = answer === undefined ? patch : { ...patch, answers: sql<string>`coalesce(answers, '') || ${answer}` };
  for (let i = 0; i < keys.length; i += 200)
    await db
      .updateTable('webhook_deliveries')
      .set(set)
      .where(byKeys(keys.slice(i, i + 200)))
      .execute();
}

/**
 * Erasure of a lead: delivery error texts that quote one of its addresses.
 * A delivery row holds no payload (the body is built from its event, which
 * events/outbox.repository.ts `eraseLeadEvents` reduces to a stub), only ids,
 * the endpoint's status code and this free text; today's sender writes
 * `HTTP <status>` or a transport error there, but the column is free text and
 * an error may quote what it was sent.
 */
export async function clearDeliveryErrorsMentioning(
  db: Db,
  organizationId: string,
  addresses: readonly string[],
): Promise<number> {
  if (addresses.length === 0) return 0;
  const quoting = (column: 'last_error' | 'answers') =>
    sql<SqlBool>`(${sql.join(
      addresses.map((a) => mentions(column, a)),
      sql` or `,
    )})`;
  // Each attempt's answer (0039) holds the same free text: the history goes whole. One pass over the rows for both.
  const res = await db
    .updateTable('webhook_deliveries')
    .set({
      last_error: sql<string | null>`case when ${quoting('last_error')} then null else last_error end`,
      answers: sql<string | null>`case when ${quoting('answers')} then null else answers end`,
    })
    .where('organization_id', '=', organizationId)
    .where(sql<SqlBool>`${quoting('last_error')} or ${quoting('answers')}`)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * Holds deliveries whose endpoint is (still) disabled: pending, no due time,
 * lease released, attempts unchanged. The endpoints are read under a share
 * lock, so an enable committing meanwhile (which takes the row FOR UPDATE, then
 * resumes held rows) is either seen here, and the row is left due, or waits
 * for this and then resumes it: a delivery is never held behind an enabled
 * endpoint. (SQLite serialises writers anyway.)
 */
export async function holdDeliveries(
  db: Db,
  held: readonly (RowKey & { endpoint_id: string })[],
  now: string,
): Promise<void> {
  const endpoints = [
    ...new Map(held.map((h) => [h.endpoint_id, { organization_id: h.organization_id, id: h.endpoint_id }])).values(),
  ];
  const disabled = await lockDisabled(db, endpoints);
  const keys = (rows: typeof held) => rows.map((h) => ({ organization_id: h.organization_id, id: h.id }));
  const hold = keys(held.filter((h) => disabled.has(h.endpoint_id)));
  // Rows whose endpoint was enabled meanwhile are due as they were: give up the lease so they go out now.
  const release = keys(held.filter((h) => !disabled.has(h.endpoint_id)));
  for (let i = 0; i < hold.length; i += 200) {
    await db
      .updateTable('webhook_deliveries')
      .set({ lease_until: null, next_attempt_at: null, updated_at: now })
      .where(byKeys(hold.slice(i, i + 200)))
      .execute();
  }
  for (let i = 0; i < release.length; i += 200) {
    await db
      .updateTable('webhook_deliveries')
      .set({ lease_until: null })
      .where(byKeys(release.slice(i, i + 200)))
      .execute();
  }
}

/**
 * Deliveries held while their endpoint was disabled (pending, no due time)
 * become due again, each at its creation time: the backlog goes out oldest
 * first, ahead of anything created since.
 */
export async function resumeHeldDeliveries(db: Db, organizationId: string, endpointId: string): Promise<number> {
  const res = await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ next_attempt_at: eb.ref('created_at') }))
    .where('organization_id', '=', organizationId)
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .where('next_attempt_at', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/** The stored event a delivery carries (null once an erasure or retention removed it). */
export async function findDeliveryEvent(
  db: Db,
  organizationId: string,
  eventId: string,
): Promise<{ type: string; payload: string; created_at: string } | undefined> {
  return db
    .selectFrom('events')
    .select(['type', 'payload', 'created_at'])
    .where('organization_id', '=', organizationId)
    .where('id', '=', eventId)
    .executeTakeFirst();
}
