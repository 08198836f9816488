import type { Deps } from '../platform/deps.js';
import { readSettings } from '../settings/settings.service.js';
import { enrollPage, leadsByIds, snapshotPage, type SnapshotPosition } from './campaigns.repository.js';
import type { CampaignFilterInput } from './campaigns.schemas.js';
import { insertEnrollments } from './enrollments.repository.js';
import { standingBlocks } from './screen.js';

/** Leads read, screened and enrolled per transaction: short enough that SQLite's one writer is never held for long. */
export const ENROLL_BATCH = 2000;

/**
 * Writes the campaign's snapshot: every lead of the organization created no
 * later than `cutoff` that the filter selects, in creation order, one
 * transaction per batch. The database selects the batch (the whole filter is
 * SQL) and copies it into the enrollments; only the few leads the pre-screen
 * flags are judged here. A lead something stands against is enrolled
 * `blocked` with the gate's code and reason (never skipped silently); the
 * others `pending`.
 */
export async function enrollSnapshot(
  deps: Deps,
  organizationId: string,
  campaignId: string,
  filter: CampaignFilterInput,
  cutoff: string,
): Promise<void> {
  // Read once: with purpose 'compliance' the gate's standing checks never look at them, whatever the batch.
  const settings = await readSettings(deps.db, organizationId);
  let after: SnapshotPosition | undefined;
  for (;;) {
    const last = await deps.db.transaction().execute(async (trx) => {
      const page = await snapshotPage(trx, organizationId, filter, cutoff, after, ENROLL_BATCH);
      if (page.length === 0) return undefined;
      const now = deps.clock.now();
      const at = now.toISOString();
      const blocks = await standingBlocks(trx, deps.digests, organizationId, page, settings, now, (ids) =>
        leadsByIds(trx, organizationId, ids),
      );
      // biome-ignore lint/style/noNonNullAssertion: an empty page returned just above
      const end = page[page.length - 1]!;
      const upTo = { at: end.created_at, id: end.id };
      await enrollPage(trx, organizationId, campaignId, filter, cutoff, after, upTo, [...blocks.keys()], at);
      await insertEnrollments(
        trx,
        organizationId,
        [...blocks].map(([leadId, block]) => ({
          campaign_id: campaignId,
          lead_id: leadId,
          status: 'blocked' as const,
          reason_code: block.code,
          reason: block.reason,
          message_id: null,
          opening_id: null,
          queued_day: null,
          created_at: at,
          updated_at: at,
        })),
      );
      return upTo;
    });
    if (last === undefined) return;
    after = last;
  }
}
