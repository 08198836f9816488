import type { Db } from '../platform/db/schema.js';
import { lockLeads } from './campaigns.repository.js';
import { cancelPending, queuedNotOut, setEnrollment, takeBackOpening } from './enrollments.repository.js';

/**
 * Pause or cancel, in the caller's transaction with the campaign locked:
 * openings handed to the send path but not out yet are taken back. The leads
 * are locked first (in id order), the lock the send path judges a message
 * under, so a message is either taken back here or already being sent there,
 * never both. A taken-back lead is pending again (pause) or cancelled.
 */
export async function takeBackQueued(trx: Db, organizationId: string, campaignId: string, to: 'paused' | 'cancelled', at: string): Promise<void> {
  const queued = await queuedNotOut(trx, organizationId, campaignId);
  await lockLeads(trx, organizationId, queued.map((e) => e.lead_id));
  const code = to === 'paused' ? 'CAMPAIGN_PAUSED' : 'CAMPAIGN_CANCELLED';
  const reason = `the campaign was ${to} before this message was sent`;
  for (const e of queued) {
    if (!(await takeBackOpening(trx, organizationId, e, code, reason, at))) continue;
    const patch = to === 'paused'
      ? { status: 'pending' as const, message_id: null, opening_id: null, queued_day: null, reason_code: null, reason: null, updated_at: at }
      : { status: 'cancelled' as const, reason_code: code, reason: 'the campaign was cancelled', updated_at: at };
    await setEnrollment(trx, organizationId, campaignId, e.lead_id, patch);
  }
  if (to === 'cancelled') await cancelPending(trx, organizationId, campaignId, at);
}
