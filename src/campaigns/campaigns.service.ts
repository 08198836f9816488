import { emitEvents } from '../events/outbox.repository.js';
import { campaignPausedEvent } from '../events/payloads.js';
import { enqueueJob } from '../jobs/jobs.repository.js';
import type { CampaignStatus, Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { decodeCursor, page } from '../platform/http/pagination.js';
import { newId } from '../platform/ids.js';
import { requireProfile } from '../profiles/profiles.service.js';
import * as repo from './campaigns.repository.js';
import { toCampaignView, toCounts } from './campaigns.mapper.js';
import type { CampaignWithCountsView, CreateCampaignInput, ListCampaignsInput } from './campaigns.schemas.js';
import { enrollSnapshot } from './enrollment.js';
import { blockQueuedOpenings, countGroups, stopEnrollmentsOfLead } from './enrollments.repository.js';
import { instantOf } from '../platform/instant.js';
import { takeBackQueued } from './take-back.js';

const MAX_AHEAD_MS = 366 * 24 * 3_600_000;
/** A snapshot still `enrolling` after this long was left by a process that died: nobody is writing it any more. */
const STALE_ENROLLING_MS = 3_600_000;

function checkFilter(input: CreateCampaignInput, now: Date): Date {
  // Checked here, where the client's 400 belongs: a leap second would otherwise throw in the snapshot's query (a 500).
  const instant = (field: string, value: string) => instantOf(value, () => new DomainError('invalid_date', { field }));
  const createdAfter =
    input.filter.createdAfter === undefined ? undefined : instant('filter.createdAfter', input.filter.createdAfter);
  const createdBefore =
    input.filter.createdBefore === undefined ? undefined : instant('filter.createdBefore', input.filter.createdBefore);
  if (createdAfter && createdBefore && createdAfter >= createdBefore) throw new DomainError('invalid_filter');
  const startAt = input.startAt ? instant('startAt', input.startAt) : now;
  if (startAt.getTime() - now.getTime() > MAX_AHEAD_MS) throw new DomainError('invalid_schedule', { field: 'startAt' });
  return startAt < now ? now : startAt;
}

async function withCounts(db: Db, organizationId: string, row: repo.CampaignRow): Promise<CampaignWithCountsView> {
  return { ...toCampaignView(row), counts: toCounts(await countGroups(db, organizationId, row.id)) };
}

/**
 * POST /v1/campaigns. The snapshot is written in batches (enrollment.ts), each
 * its own short transaction, under a campaign row that stays `enrolling`,
 * which the API does not show. Only when every batch is in does the campaign
 * become scheduled or running and its first campaign.run job get queued, in
 * one transaction. If enrollment fails, its rows are deleted and the client
 * gets the error: from the client's side it is all or nothing.
 */
export async function createCampaign(
  deps: Deps,
  organizationId: string,
  input: CreateCampaignInput,
): Promise<CampaignWithCountsView> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const startAt = checkFilter(input, now);
  await requireProfile(deps.db, organizationId, input.customerProfile);
  for (const stale of await repo.staleEnrollingCampaigns(
    deps.db,
    organizationId,
    new Date(now.getTime() - STALE_ENROLLING_MS).toISOString(),
  )) {
    await deps.db.transaction().execute((trx) => repo.deleteCampaign(trx, organizationId, stale));
  }
  const id = newId();
  await repo.insertCampaign(deps.db, organizationId, {
    id,
    name: input.name,
    customer_profile: input.customerProfile,
    filter: JSON.stringify(input.filter),
    start_at: startAt.toISOString(),
    daily_cap: input.dailyCap,
    status: 'enrolling',
    run_generation: 0,
    created_at: at,
    updated_at: at,
  });
  try {
    await enrollSnapshot(deps, organizationId, id, input.filter, at);
  } catch (err) {
    await deps.db
      .transaction()
      .execute((trx) => repo.deleteCampaign(trx, organizationId, id))
      .catch((e: unknown) =>
        deps.log.error({ err: e, campaignId: id }, 'could not remove a half-written campaign snapshot'),
      );
    throw err;
  }
  return deps.db.transaction().execute(async (trx) => {
    const status: CampaignStatus = startAt > now ? 'scheduled' : 'running';
    await repo.updateCampaign(trx, organizationId, id, ['enrolling'], {
      status,
      updated_at: deps.clock.now().toISOString(),
    });
    await enqueueJob(trx, organizationId, 'campaign.run', { campaignId: id, generation: 0 }, startAt, at);
    return withCounts(trx, organizationId, await repo.requireCampaign(trx, organizationId, id));
  });
}

export async function listCampaigns(deps: Deps, organizationId: string, q: ListCampaignsInput) {
  const limit = q.limit ?? 100;
  const { items, nextToken } = page(
    await repo.listCampaigns(deps.db, organizationId, decodeCursor(q.nextToken), limit),
    limit,
  );
  return { campaigns: items.map(toCampaignView), nextToken };
}

export async function getCampaign(deps: Deps, organizationId: string, id: string): Promise<CampaignWithCountsView> {
  return withCounts(deps.db, organizationId, await repo.requireCampaign(deps.db, organizationId, id));
}

const cannot = (id: string, status: string, what: string, allowed: string) =>
  new DomainError('invalid_campaign_transition', { id, status, allowed, what });

/**
 * Pause and cancel, under the campaign's lock: the generation moves on (its
 * queued campaign.run job becomes a no-op) and openings handed to the send
 * path but not out yet (waiting for contact hours, or being composed) are
 * taken back. A paused campaign's taken-back leads are pending again.
 */
async function stop(
  deps: Deps,
  organizationId: string,
  id: string,
  to: 'paused' | 'cancelled',
): Promise<CampaignWithCountsView> {
  return deps.db.transaction().execute(async (trx) => {
    const c = await repo.requireCampaign(trx, organizationId, id, true);
    const from: CampaignStatus[] = to === 'paused' ? ['scheduled', 'running'] : ['scheduled', 'running', 'paused'];
    if (!from.includes(c.status))
      throw cannot(id, c.status, to, to === 'paused' ? 'scheduled or running' : 'scheduled, running or paused');
    const at = deps.clock.now().toISOString();
    await repo.updateCampaign(trx, organizationId, id, from, {
      status: to,
      run_generation: c.run_generation + 1,
      updated_at: at,
      ...(to === 'cancelled' ? { cancelled_at: at } : {}),
    });
    await takeBackQueued(trx, organizationId, id, to, at);
    return withCounts(trx, organizationId, await repo.requireCampaign(trx, organizationId, id));
  });
}

export const pauseCampaign = (deps: Deps, organizationId: string, id: string) =>
  stop(deps, organizationId, id, 'paused');

/**
 * A campaign pausing itself (deliverability/: its sends are being filtered):
 * as a pause by hand, only from scheduled or running, with the reason kept on
 * the campaign and a `campaign.paused` event, in one transaction. Answers
 * whether it paused (false: already paused, or ended).
 */
export async function pauseCampaignFor(
  deps: Deps,
  organizationId: string,
  id: string,
  code: string,
  reason: string,
  details: Record<string, unknown> = {},
): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    const c = await repo.findCampaign(trx, organizationId, id, true);
    if (!c || (c.status !== 'scheduled' && c.status !== 'running')) return false;
    const at = deps.clock.now().toISOString();
    await repo.updateCampaign(trx, organizationId, id, ['scheduled', 'running'], {
      status: 'paused',
      run_generation: c.run_generation + 1,
      updated_at: at,
      pause_code: code,
      pause_reason: reason.slice(0, 500),
    });
    await takeBackQueued(trx, organizationId, id, 'paused', at);
    await emitEvents(trx, organizationId, at, [campaignPausedEvent({ id, name: c.name }, code, reason, details)]);
    return true;
  });
}
export const cancelCampaign = (deps: Deps, organizationId: string, id: string) =>
  stop(deps, organizationId, id, 'cancelled');

/** Resume: a new generation and its own campaign.run job, from its start time or now. */
export async function resumeCampaign(deps: Deps, organizationId: string, id: string): Promise<CampaignWithCountsView> {
  return deps.db.transaction().execute(async (trx) => {
    const c = await repo.requireCampaign(trx, organizationId, id, true);
    if (c.status !== 'paused') throw cannot(id, c.status, 'resumed', 'paused');
    const now = deps.clock.now();
    const startAt = new Date(c.start_at);
    const generation = c.run_generation + 1;
    await repo.updateCampaign(trx, organizationId, id, ['paused'], {
      status: startAt > now ? 'scheduled' : 'running',
      run_generation: generation,
      updated_at: now.toISOString(),
      pause_code: null,
      pause_reason: null,
    });
    await enqueueJob(
      trx,
      organizationId,
      'campaign.run',
      { campaignId: id, generation },
      startAt > now ? startAt : now,
      now.toISOString(),
    );
    return withCounts(trx, organizationId, await repo.requireCampaign(trx, organizationId, id));
  });
}

/**
 * inbound/inbound.ts, in the transaction that stores the lead's message,
 * under the lead's lock: the lead wrote (or said stop), so no campaign opening
 * still waiting goes out to it, and its enrollments say replied / opted out.
 */
export async function campaignsAfterInbound(
  trx: Db,
  organizationId: string,
  leadId: string,
  optedOut: boolean,
  at: Date,
): Promise<void> {
  const when = at.toISOString();
  const reason = optedOut ? 'the lead opted out' : 'the lead replied';
  const touched = await stopEnrollmentsOfLead(
    trx,
    organizationId,
    leadId,
    optedOut ? 'opted_out' : 'replied',
    reason,
    when,
  );
  if (touched > 0)
    await blockQueuedOpenings(
      trx,
      organizationId,
      { leadId },
      'CAMPAIGN_STOPPED',
      `${reason} before the campaign message was sent`,
      when,
    );
}
