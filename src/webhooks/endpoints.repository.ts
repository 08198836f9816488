import { NotFound } from '../platform/errors.js';
import { withLock } from '../platform/db/locks.js';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db, WebhookEndpointsTable } from '../platform/db/schema.js';
import { keysIn } from '../platform/db/keys.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

export async function insertEndpoint(
  db: Db,
  organizationId: string,
  row: Omit<Insertable<WebhookEndpointsTable>, 'organization_id'>,
): Promise<void> {
  await db
    .insertInto('webhook_endpoints')
    .values({ ...row, organization_id: organizationId })
    .execute();
}

export async function findEndpoint(db: Db, organizationId: string, id: string): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listEndpoints(db: Db, organizationId: string): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('id')
    .execute();
}

export async function updateEndpoint(
  db: Db,
  organizationId: string,
  id: string,
  patch: Updateable<WebhookEndpointsTable>,
): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set(patch)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

export async function deleteEndpoint(db: Db, organizationId: string, id: string): Promise<void> {
  await db
    .deleteFrom('webhook_deliveries')
    .where('organization_id', '=', organizationId)
    .where('endpoint_id', '=', id)
    .execute();
  await db.deleteFrom('webhook_endpoints').where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

/** Every endpoint of the organizations given, enabled or not, for fanning events out (a disabled one's are held). */
export async function endpointsOf(db: Db, organizationIds: string[]): Promise<EndpointRow[]> {
  if (organizationIds.length === 0) return [];
  return db.selectFrom('webhook_endpoints').selectAll().where('organization_id', 'in', organizationIds).execute();
}

/**
 * Which of these endpoints are disabled, read under a share lock: an enable
 * that commits meanwhile is either seen (the endpoint is not in the answer) or
 * waits for the caller's transaction, and then finds and resumes what the
 * caller held for it (webhooks.service.ts updateEndpoint).
 */
export async function lockDisabled(
  db: Db,
  endpoints: readonly Pick<EndpointRow, 'organization_id' | 'id'>[],
): Promise<Set<string>> {
  if (endpoints.length === 0) return new Set();
  const q = db.selectFrom('webhook_endpoints').select('id').where(keysIn(endpoints)).where('enabled', '=', 0);
  return new Set((await withLock(db, q, 'share').execute()).map((r) => r.id));
}

/**
 * Events only an endpoint that names them receives (Parley's own outcome
 * events, docs/webhooks.md): a receiver registered for every type before they
 * existed, or written against the hosted service's types, is not handed
 * payloads it has never seen.
 */
export const OPT_IN_EVENTS: ReadonlySet<string> = new Set([
  'lead.created',
  'message.delivered',
  'message.failed',
  'campaign.paused',
  'sendingNumber.unusable',
]);

/** Does this endpoint want events of this type? null means every type but the opt-in ones. */
export function wants(endpoint: Pick<EndpointRow, 'events'>, type: string): boolean {
  if (endpoint.events === null) return !OPT_IN_EVENTS.has(type);
  return (JSON.parse(endpoint.events) as string[]).includes(type);
}

/**
 * The endpoint under a row lock, so a replay and a delete of the same endpoint
 * serialise and no delivery outlives its endpoint.
 */
export async function findEndpointForUpdate(
  db: Db,
  organizationId: string,
  id: string,
): Promise<EndpointRow | undefined> {
  const q = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id);
  return withLock(db, q, 'update').executeTakeFirst();
}

export const endpointNotFound = (id: string) => new NotFound('WebhookEndpoint', 'id', id);

/** Another organization's endpoint is as unknown as a missing one: same 404, nothing leaks. */
export async function requireEndpoint(db: Db, organizationId: string, id: string, lock = false): Promise<EndpointRow> {
  const row = lock ? await findEndpointForUpdate(db, organizationId, id) : await findEndpoint(db, organizationId, id);
  if (!row) throw endpointNotFound(id);
  return row;
}
