import type { CampaignRow } from './campaigns.repository.js';
import type { CampaignCountsView, CampaignFilterInput, CampaignView } from './campaigns.schemas.js';
import type { CountGroup } from './enrollments.repository.js';

export function toCampaignView(row: CampaignRow): CampaignView {
  return {
    id: row.id,
    name: row.name,
    status: row.status === 'enrolling' ? 'scheduled' : row.status,
    customerProfile: row.customer_profile,
    filter: JSON.parse(row.filter) as CampaignFilterInput,
    startAt: row.start_at,
    dailyCap: Number(row.daily_cap),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
    cancelledAt: row.cancelled_at,
    pauseCode: row.pause_code ?? null,
    pauseReason: row.pause_reason ?? null,
  };
}

/** Blocks at send time that mean the lead (or the organization for it) said stop after it was enrolled. */
const STOPS = new Set(['OPTED_OUT', 'DNC', 'OPTED_OUT_BEFORE_SEND']);
const OUT = new Set(['sent', 'delivered']);

type Bucket = Exclude<keyof CampaignCountsView, 'enrolled' | 'blockedByReason' | 'messagesSent'>;

/** The one bucket an enrollment is in: its own state first, then what its opening and message became. */
function bucketOf(g: CountGroup): { bucket: Bucket; code?: string } {
  switch (g.status) {
    case 'pending':
      return { bucket: 'pending' };
    case 'blocked':
      return { bucket: 'blocked', code: g.reason_code ?? 'UNKNOWN' };
    case 'replied':
      return { bucket: 'replied' };
    case 'opted_out':
      return { bucket: 'optedOut' };
    case 'failed':
      return { bucket: 'failed' };
    case 'cancelled':
      return { bucket: 'cancelled' };
    case 'queued':
      break;
  }
  if (g.message_status === null) {
    // Neither a message nor an opening being written: the message went with its lead's erasure.
    if (g.opening_status === null || g.opening_status === 'failed') return { bucket: 'failed' };
    if (g.opening_status === 'skipped') return { bucket: 'blocked', code: 'OPENING_SKIPPED' };
    return { bucket: 'queued' };
  }
  if (g.message_status === 'scheduled' || g.message_status === 'sending') return { bucket: 'queued' };
  if (g.message_status === 'blocked')
    return STOPS.has(g.message_code ?? '')
      ? { bucket: 'optedOut' }
      : { bucket: 'blocked', code: g.message_code ?? 'UNKNOWN' };
  if (g.message_status === 'failed' || g.message_status === 'undelivered') return { bucket: 'failed' };
  return { bucket: 'sent' };
}

export function toCounts(groups: readonly CountGroup[]): CampaignCountsView {
  const c: CampaignCountsView = {
    enrolled: 0,
    pending: 0,
    queued: 0,
    sent: 0,
    blocked: 0,
    blockedByReason: {},
    replied: 0,
    optedOut: 0,
    failed: 0,
    cancelled: 0,
    messagesSent: 0,
  };
  for (const g of groups) {
    const { bucket, code } = bucketOf(g);
    c.enrolled += g.n;
    c[bucket] += g.n;
    if (code) c.blockedByReason[code] = (c.blockedByReason[code] ?? 0) + g.n;
    if (g.message_status !== null && OUT.has(g.message_status)) c.messagesSent += g.n;
  }
  return c;
}
