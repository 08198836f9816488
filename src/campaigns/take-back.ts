import type { Db } from '../platform/db/schema.js';
import {
  blockQueuedOpenings,
  cancelPending,
  lockLeadsWithQueuedOpenings,
  settleTakenBack,
} from './enrollments.repository.js';

/**
 * Pause or cancel, in the caller's transaction with the campaign locked:
 * openings handed to the send path but not out yet are taken back, in a few
 * statements however many there are. The leads are locked first (in id
 * order), the lock the send path judges a message under, so a message is
 * either taken back here or already being sent there, never both. A
 * taken-back lead is pending again (pause) or cancelled.
 */
export async function takeBackQueued(
  trx: Db,
  organizationId: string,
  campaignId: string,
  to: 'paused' | 'cancelled',
  at: string,
): Promise<void> {
  await lockLeadsWithQueuedOpenings(trx, organizationId, campaignId);
  const code = to === 'paused' ? 'CAMPAIGN_PAUSED' : 'CAMPAIGN_CANCELLED';
  const reason = `the campaign was ${to} before this message was sent`;
  await blockQueuedOpenings(trx, organizationId, { campaignId }, code, reason, at);
  await settleTakenBack(
    trx,
    organizationId,
    campaignId,
    code,
    reason,
    to === 'paused'
      ? {
          status: 'pending',
          message_id: null,
          opening_id: null,
          queued_day: null,
          reason_code: null,
          reason: null,
          updated_at: at,
        }
      : { status: 'cancelled', reason_code: code, reason: 'the campaign was cancelled', updated_at: at },
  );
  if (to === 'cancelled') await cancelPending(trx, organizationId, campaignId, at);
}
