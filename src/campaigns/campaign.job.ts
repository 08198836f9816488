import { localTime, nextLocalClock } from '../compliance/contact-window.js';
import { holdsLease } from '../jobs/jobs.repository.js';
import type { CampaignRunPayload, ClaimedJob, JobOutcome } from '../jobs/names.js';
import { latestOpening } from '../profiles/openings.repository.js';
import { updateLead, type LeadRow } from '../lead-records/leads.repository.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { requestOpening } from '../profiles/opening.js';
import { findProfileByName, type ProfileRow } from '../profile-records/profiles.repository.js';
import { readSettings } from '../settings/settings.service.js';
import { findCampaign, leadsByIds, updateCampaign, type CampaignRow } from './campaigns.repository.js';
import {
  countQueuedOn,
  nextPending,
  setEnrollment,
  settlePending,
  type EnrollmentRow,
} from './enrollments.repository.js';
import { standingBlocks, type StandingBlock } from './screen.js';

/** Openings per transaction: the campaign row is locked while they are made. */
const BATCH = 50;
/** Batches per run of the job before it yields its slot (it is queued again at once). */
const BATCHES_PER_RUN = 20;

type BatchResult = { kind: 'stopped' } | { kind: 'more' } | { kind: 'capped'; until: Date } | { kind: 'completed' };

const STOPS = new Set(['OPTED_OUT', 'DNC']);

interface Context {
  trx: Db;
  campaign: CampaignRow;
  profile: ProfileRow | undefined;
  now: Date;
  day: string;
}

/**
 * One lead's turn, claimed from `pending` (settlePending) under the lead's
 * lock: what stands against it now (it may have opted out since it was
 * enrolled: `block`, from the batch's pre-screen) ends it; otherwise it is
 * switched to the campaign's profile and the profile's opening is asked for,
 * carrying the campaign's id, through the same path a switch with
 * sendMessage takes. The message is then judged by the gate when its
 * message.send job runs (contact hours where the lead is, opt-outs, the
 * number's pacing).
 */
async function openFor(
  c: Context,
  e: EnrollmentRow,
  lead: LeadRow | undefined,
  block: StandingBlock | undefined,
): Promise<void> {
  const { trx, campaign } = c;
  const org = campaign.organization_id;
  const at = c.now.toISOString();
  const settle = (patch: Parameters<typeof settlePending>[4]) =>
    settlePending(trx, org, campaign.id, e.lead_id, { ...patch, updated_at: at });
  const set = (patch: Parameters<typeof setEnrollment>[4]) =>
    setEnrollment(trx, org, campaign.id, e.lead_id, { ...patch, updated_at: at });
  if (!lead) {
    await settle({ status: 'failed', reason_code: 'LEAD_ERASED', reason: 'the lead was erased' });
    return;
  }
  if (!c.profile) {
    await settle({
      status: 'failed',
      reason_code: 'PROFILE_GONE',
      reason: `customer profile ${campaign.customer_profile} no longer exists`,
    });
    return;
  }
  if (block) {
    await settle({
      status: STOPS.has(block.code) ? 'opted_out' : 'blocked',
      reason_code: block.code,
      reason: block.reason,
    });
    return;
  }
  if (!(await settle({ status: 'queued', queued_day: c.day }))) return;
  await updateLead(trx, org, lead.id, { customer_profile: campaign.customer_profile, updated_at: at });
  const opening = await requestOpening(trx, org, lead, c.profile, c.now, c.now, campaign.id);
  if (opening.status === 'scheduled') await set({ message_id: opening.messageId });
  else if (opening.status === 'composing')
    await set({ opening_id: (await latestOpening(trx, org, lead.id))?.id ?? null });
  else await set({ status: 'blocked', reason_code: 'ALREADY_OPENED', reason: opening.reason, queued_day: null });
}

/**
 * One batch, in one transaction holding the job's fence and the campaign's
 * row lock: the cap is counted and the pending leads are taken under the
 * same lock, so two runs of one campaign (a job left from an earlier
 * generation, two workers) never exceed the cap or open a lead twice.
 */
async function runBatch(deps: Deps, job: ClaimedJob, p: CampaignRunPayload): Promise<BatchResult> {
  const org = job.organizationId;
  return deps.db.transaction().execute(async (trx): Promise<BatchResult> => {
    const now = deps.clock.now();
    if (!(await holdsLease(trx, job, now.toISOString()))) return { kind: 'stopped' };
    const campaign = await findCampaign(trx, org, p.campaignId, true);
    if (!campaign || campaign.run_generation !== p.generation || campaign.status !== 'running')
      return { kind: 'stopped' };
    const settings = await readSettings(trx, org);
    const day = localTime(settings.timeZone, now.getTime()).date;
    const room = Number(campaign.daily_cap) - (await countQueuedOn(trx, org, campaign.id, day));
    if (room <= 0) return { kind: 'capped', until: new Date(nextLocalClock(now.getTime(), settings.timeZone, 0)) };
    const pending = await nextPending(trx, org, campaign.id, Math.min(room, BATCH));
    if (pending.length === 0) {
      await updateCampaign(trx, org, campaign.id, ['running'], {
        status: 'completed',
        completed_at: now.toISOString(),
        updated_at: now.toISOString(),
      });
      return { kind: 'completed' };
    }
    const profile = await findProfileByName(trx, org, campaign.customer_profile, 'share');
    const c: Context = { trx, campaign, profile, now, day };
    // The batch's leads locked in one statement (id order, as nextPending reads them), pre-screened in two more.
    const leads = new Map(
      (
        await leadsByIds(
          trx,
          org,
          pending.map((e) => e.lead_id),
          true,
        )
      ).map((l) => [l.id, l]),
    );
    const blocks = await standingBlocks(trx, deps.digests, org, [...leads.values()], settings, now, async (ids) =>
      // biome-ignore lint/style/noNonNullAssertion: standingBlocks asks only for ids of the leads passed to it, all keys of leads
      ids.map((id) => leads.get(id)!),
    );
    for (const e of pending) await openFor(c, e, leads.get(e.lead_id), blocks.get(e.lead_id));
    return { kind: 'more' };
  });
}

/**
 * The 'campaign.run' job: while its campaign runs (and the job's generation
 * is the campaign's), hands the next pending leads' openings to the send path,
 * up to what remains of the daily cap today in the organization's time zone,
 * then defers itself: to local midnight when the cap is reached, at once when
 * it has done its share of batches. A scheduled campaign starts at its
 * startAt. The campaign completes when no lead is pending; paused, cancelled
 * or a newer generation end the job.
 */
export async function runCampaign(deps: Deps, job: ClaimedJob & { payload: CampaignRunPayload }): Promise<JobOutcome> {
  const p = job.payload;
  const org = job.organizationId;
  const campaign = await findCampaign(deps.db, org, p.campaignId);
  if (!campaign || campaign.run_generation !== p.generation) return { kind: 'done' };
  if (campaign.status === 'scheduled') {
    const now = deps.clock.now();
    const startAt = new Date(campaign.start_at);
    if (startAt > now) return { kind: 'defer', until: startAt, reason: 'the campaign starts later' };
    await updateCampaign(deps.db, org, campaign.id, ['scheduled'], {
      status: 'running',
      updated_at: now.toISOString(),
    });
  }
  for (let i = 0; i < BATCHES_PER_RUN; i += 1) {
    const r = await runBatch(deps, job, p);
    if (r.kind === 'stopped' || r.kind === 'completed') return { kind: 'done' };
    if (r.kind === 'capped') return { kind: 'defer', until: r.until, reason: 'the daily cap is reached' };
  }
  return { kind: 'defer', until: deps.clock.now(), reason: 'more leads to open' };
}
