import type { Updateable } from 'kysely';
import { isoNow } from '../platform/clock.js';
import type { WebhookEndpointsTable } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import * as repo from './endpoints.repository.js';
import { resumeHeldDeliveries } from './deliveries.repository.js';
import { generateSecret } from './signing.js';
import { checkWebhookUrl, UnsafeUrl } from './url-safety.js';
import { toEndpointView } from './webhooks.mapper.js';
import type { CreateWebhookInput, UpdateWebhookInput, WebhookEndpointView } from './webhooks.schemas.js';

export type EndpointWithSecret = WebhookEndpointView & { secret: string };

/** Resolves the host now (SSRF); the delivery agent resolves again at connect time. */
async function checkUrl(deps: Deps, url: string): Promise<void> {
  try {
    await checkWebhookUrl(url, deps.config.allowPrivateWebhookUrls);
  } catch (err) {
    if (err instanceof UnsafeUrl) throw new DomainError('unsafe_url', { detail: err.message });
    throw err;
  }
}

/** null (or absent) means every event type; duplicates are kept once, in the order given. */
const eventsColumn = (events: string[] | null | undefined): string | null =>
  events ? JSON.stringify([...new Set(events)]) : null;

export async function createEndpoint(
  deps: Deps,
  organizationId: string,
  input: CreateWebhookInput,
): Promise<EndpointWithSecret> {
  await checkUrl(deps, input.url);
  const at = isoNow(deps.clock);
  const id = newId();
  const secret = generateSecret();
  await repo.insertEndpoint(deps.db, organizationId, {
    id,
    url: input.url,
    description: input.description ?? null,
    events: eventsColumn(input.events),
    secret,
    enabled: 1,
    disabled_reason: null,
    created_at: at,
    updated_at: at,
  });
  return { ...toEndpointView(await repo.requireEndpoint(deps.db, organizationId, id)), secret };
}

export async function listEndpoints(deps: Deps, organizationId: string): Promise<WebhookEndpointView[]> {
  return (await repo.listEndpoints(deps.db, organizationId)).map(toEndpointView);
}

export async function getEndpoint(deps: Deps, organizationId: string, id: string): Promise<WebhookEndpointView> {
  return toEndpointView(await repo.requireEndpoint(deps.db, organizationId, id));
}

const DISABLED_BY_API = 'Disabled through the API';

export async function updateEndpoint(
  deps: Deps,
  organizationId: string,
  id: string,
  input: UpdateWebhookInput,
): Promise<WebhookEndpointView> {
  // Checked before the transaction: DNS resolution must not hold a database lock.
  if (input.url !== undefined) await checkUrl(deps, input.url);
  return deps.db.transaction().execute(async (trx) => {
    const row = await repo.requireEndpoint(trx, organizationId, id, true);
    const patch: Updateable<WebhookEndpointsTable> = { updated_at: isoNow(deps.clock) };
    if (input.url !== undefined) patch.url = input.url;
    if (input.description !== undefined) patch.description = input.description;
    if (input.events !== undefined) patch.events = eventsColumn(input.events);
    if (input.enabled === true) Object.assign(patch, { enabled: 1, disabled_reason: null });
    // Disabling an endpoint the worker already disabled keeps the worker's reason.
    if (input.enabled === false && Number(row.enabled) === 1)
      Object.assign(patch, { enabled: 0, disabled_reason: DISABLED_BY_API });
    await repo.updateEndpoint(trx, organizationId, id, patch);
    // What arrived while it was disabled is delivered now, oldest first.
    if (input.enabled === true && Number(row.enabled) !== 1) await resumeHeldDeliveries(trx, organizationId, id);
    return toEndpointView(await repo.requireEndpoint(trx, organizationId, id));
  });
}

/** Its deliveries go with it (in one transaction, under the endpoint's lock: see replayDelivery). */
export async function deleteEndpoint(deps: Deps, organizationId: string, id: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await repo.requireEndpoint(trx, organizationId, id, true);
    await repo.deleteEndpoint(trx, organizationId, id);
  });
}

/** The old secret stops working at once: every delivery signs with the secret stored at send time. */
export async function rotateSecret(deps: Deps, organizationId: string, id: string): Promise<EndpointWithSecret> {
  const secret = generateSecret();
  return deps.db.transaction().execute(async (trx) => {
    await repo.requireEndpoint(trx, organizationId, id, true);
    await repo.updateEndpoint(trx, organizationId, id, { secret, updated_at: isoNow(deps.clock) });
    return { ...toEndpointView(await repo.requireEndpoint(trx, organizationId, id)), secret };
  });
}
