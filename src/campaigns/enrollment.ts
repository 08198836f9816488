import { phonesOnDnc } from '../dnc/dnc.repository.js';
import { parseInfo } from '../leads/leads.mapper.js';
import type { LeadRow } from '../leads/leads.repository.js';
import { standingBlock } from '../messages/send.service.js';
import type { AddressDigests } from '../platform/address-digest.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { readSettings } from '../settings/settings.service.js';
import { channelStatus, CHANNELS } from '../subscriptions/channels.js';
import { suppressedDigests } from '../subscriptions/suppressions.repository.js';
import { leadsMatching, type SnapshotPosition } from './campaigns.repository.js';
import type { CampaignFilterInput } from './campaigns.schemas.js';
import { insertEnrollments } from './enrollments.repository.js';

/** Leads read, screened and enrolled per transaction: short enough that SQLite's one writer is never held for long. */
export const ENROLL_BATCH = 500;

/** additionalInfo equality: the same JSON type and value (1 is not "1"). */
export function infoMatches(lead: Pick<LeadRow, 'additional_info'>, wanted: CampaignFilterInput['additionalInfo']): boolean {
  if (!wanted) return true;
  const info = parseInfo(lead.additional_info);
  return Object.entries(wanted).every(([key, value]) => Object.prototype.hasOwnProperty.call(info, key) && info[key] === value);
}

/**
 * Whether anything might stand against the lead: an unsubscribed or missing
 * channel on its row, an opt-out of one of its addresses, its phone on DNC.
 * Read for the whole batch in two statements; only a lead it flags is put to
 * the gate's own checks (messages/send.service.ts standingBlock), which decide
 * the code and reason. A lead it misses is still judged by the gate at send time.
 */
async function flagged(db: Db, digests: AddressDigests, organizationId: string, leads: readonly LeadRow[]): Promise<Set<string>> {
  const addresses = leads.flatMap((l) => [l.phone, l.email].filter((a): a is string => !!a));
  const suppressed = await suppressedDigests(db, organizationId, addresses.flatMap((a) => [digests.keyed(a), digests.legacy(a)]));
  const onDnc = await phonesOnDnc(db, organizationId, leads.flatMap((l) => (l.phone ? [l.phone] : [])));
  const out = new Set<string>();
  for (const lead of leads) {
    const mine = [lead.phone, lead.email].filter((a): a is string => !!a);
    const rowSays = (!lead.phone && !lead.email) || CHANNELS.some((c) => channelStatus(lead, c) === 'unsubscribed');
    if (rowSays || (lead.phone && onDnc.has(lead.phone)) || mine.some((a) => suppressed.has(digests.keyed(a)) || suppressed.has(digests.legacy(a)))) out.add(lead.id);
  }
  return out;
}

/**
 * Writes the campaign's snapshot: every lead of the organization created no
 * later than `cutoff` that the filter selects, in creation order, one transaction per
 * batch. A lead something stands against is enrolled `blocked` with the gate's
 * code and reason (never skipped silently); the others `pending`.
 */
export async function enrollSnapshot(deps: Deps, organizationId: string, campaignId: string, filter: CampaignFilterInput, cutoff: string): Promise<void> {
  // Read once: with purpose 'compliance' the gate's standing checks never look at them, whatever the batch.
  const settings = await readSettings(deps.db, organizationId);
  let after: SnapshotPosition | undefined;
  for (;;) {
    const last = await deps.db.transaction().execute(async (trx) => {
      const rows = await leadsMatching(trx, organizationId, filter, cutoff, after, ENROLL_BATCH);
      if (rows.length === 0) return undefined;
      const leads = rows.filter((l) => infoMatches(l, filter.additionalInfo));
      const suspects = await flagged(trx, deps.digests, organizationId, leads);
      const now = deps.clock.now();
      const at = now.toISOString();
      const enrollments = [];
      for (const lead of leads) {
        const block = suspects.has(lead.id) ? await standingBlock(trx, deps.digests, organizationId, lead, settings, now) : undefined;
        enrollments.push({
          campaign_id: campaignId, lead_id: lead.id, status: block ? ('blocked' as const) : ('pending' as const),
          reason_code: block?.code ?? null, reason: block?.reason ?? null, message_id: null, opening_id: null, queued_day: null, created_at: at, updated_at: at,
        });
      }
      await insertEnrollments(trx, organizationId, enrollments);
      const end = rows[rows.length - 1]!;
      return { at: end.created_at, id: end.id };
    });
    if (last === undefined) return;
    after = last;
  }
}
