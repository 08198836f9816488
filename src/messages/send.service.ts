import { enqueueJob } from '../jobs/jobs.repository.js';
import { requireLead } from '../leads/leads.repository.js';
import type { LeadRow } from '../leads/leads.repository.js';
import type { Db, MessagePurpose } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { BadRequest } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { reachableChannels, type ChannelName } from '../subscriptions/channels.js';
import { insertMessage } from './messages.repository.js';
import type { SendMessageInput } from './send.schemas.js';

const MAX_AHEAD_MS = 366 * 24 * 3_600_000;

/** The lead's first reachable channel in the order sms, email (voice only when asked for). */
export function defaultChannel(lead: LeadRow, requested?: ChannelName): ChannelName {
  const reachable = reachableChannels(lead);
  if (requested) {
    if (!reachable.includes(requested)) throw new BadRequest(requested === 'email' ? 'Lead has no email' : 'Lead has no phone', 'channel_unavailable');
    return requested;
  }
  return reachable.includes('sms') ? 'sms' : 'email';
}

export interface ScheduledSend {
  organizationId: string;
  lead: LeadRow;
  channel: ChannelName;
  text: string;
  runAt: Date;
  sendWhenOff: boolean;
  isAiGenerated: boolean;
  now: string;
  /** `compliance` for HELP answers and keyword confirmations (see compliance/gate.ts). */
  purpose?: MessagePurpose;
}

/**
 * Records an outbound message and the job that will send it, with the caller's
 * transaction: the message exists if and only if its send is scheduled. The
 * compliance gate runs when the job runs, against the lead's state at that time.
 */
export async function scheduleSend(db: Db, s: ScheduledSend): Promise<string> {
  const id = newId();
  await insertMessage(db, s.organizationId, {
    id,
    lead_id: s.lead.id,
    channel: s.channel,
    direction: 'outbound',
    owner: 'user',
    text: s.text,
    is_ai_generated: s.isAiGenerated ? 1 : 0,
    status: 'scheduled',
    status_reason: null,
    scheduled_at: s.runAt.toISOString(),
    created_at: s.now,
    purpose: s.purpose ?? 'conversation',
  });
  await enqueueJob(db, s.organizationId, 'message.send', { messageId: id, sendWhenOff: s.sendWhenOff }, s.runAt, s.now);
  return id;
}

export async function sendMessage(deps: Deps, organizationId: string, leadId: string, input: SendMessageInput) {
  const now = deps.clock.now();
  const requested = input.scheduledTime ? new Date(input.scheduledTime) : now;
  if (requested.getTime() - now.getTime() > MAX_AHEAD_MS) throw new BadRequest('scheduledTime must be within a year', 'invalid_schedule');
  const runAt = requested.getTime() < now.getTime() ? now : requested;
  return deps.db.transaction().execute(async (trx) => {
    const lead = await requireLead(trx, organizationId, leadId, true);
    const channel = defaultChannel(lead, input.channel);
    const id = await scheduleSend(trx, {
      organizationId, lead, channel, text: input.message, runAt,
      sendWhenOff: input.sendWhenOff ?? false, isAiGenerated: false, now: now.toISOString(),
    });
    return { id, channel, scheduledTime: runAt.toISOString() };
  });
}
