import { enqueueJob } from '../jobs/jobs.repository.js';
import { recordFirstTouch } from '../handoff-records/handoffs.repository.js';
import { checkOutbound } from '../compliance/gate.js';
import { requireLead } from '../lead-records/leads.repository.js';
import { readSettings, type OrganizationSettings } from '../settings/settings.service.js';
import type { AddressDigests } from '../platform/address-digest.js';
import type { LeadRow } from '../lead-records/leads.repository.js';
import type { Db, MessagePurpose } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { defaultChannel, toChannel, type ChannelName } from '../lead-records/channels.js';
import { insertMessage } from './messages.repository.js';
import type { SendMessageInput } from './send.schemas.js';

const MAX_AHEAD_MS = 366 * 24 * 3_600_000;

/**
 * Whether a message on `channel` is spoken on a live call (`message.call`):
 * every voice message, with Twilio, whoever wrote it (docs/voice.md). Without
 * Twilio a voice message goes to the log adapter as any unconfigured channel.
 */
export const byLiveCall = (deps: Pick<Deps, 'config'>, channel: ChannelName): boolean =>
  channel === 'voice' && deps.config.twilio !== null;

export interface ScheduledSend {
  organizationId: string;
  lead: LeadRow;
  channel: ChannelName;
  text: string;
  runAt: Date;
  sendWhenOff: boolean;
  isAiGenerated: boolean;
  now: string;
  /** `compliance` for HELP answers and START confirmations, `stop_confirmation` for the one STOP confirmation (see compliance/gate.ts). */
  purpose?: MessagePurpose;
  overrideBusinessHours?: boolean;
  /** sendMessage `scheduleFollowUps`: kept on the message for the follow-up engine. */
  scheduleFollowUps?: boolean;
  /** Recorded blocked at once (the gate already said no): no job is queued. */
  blocked?: { code: string; reason: string };
  /** Never before this (the time the sender asked for): contact hours changed later release a waiting send no earlier (settings.service.ts). */
  notBefore?: Date;
  /** Why it waits for `runAt` (outside contact hours), shown on the message. */
  waiting?: { code: string; reason: string };
  /** The campaign whose opening this is (campaigns/): message.sent carries it. */
  campaignId?: string | null;
  /** The lead's inbound message this answers (an AI reply, a confirmation): the gate's reply window counts from it. */
  inReplyTo?: string;
  /** Spoken on a live call whose greeting it is (any voice message with Twilio, `byLiveCall`): `message.call` instead of `message.send`. */
  byCall?: boolean;
}

/**
 * Records an outbound message and the job that will send it, with the caller's
 * transaction: the message exists if and only if its send is scheduled (or it
 * is recorded blocked). The compliance gate runs when the job runs, against
 * the lead's state at that time.
 */
export async function scheduleSend(db: Db, s: ScheduledSend): Promise<string> {
  const id = newId();
  const note = s.blocked ?? s.waiting ?? null;
  await insertMessage(db, s.organizationId, {
    id,
    lead_id: s.lead.id,
    channel: s.channel,
    direction: 'outbound',
    owner: 'user',
    text: s.text,
    is_ai_generated: s.isAiGenerated ? 1 : 0,
    status: s.blocked ? 'blocked' : 'scheduled',
    status_reason: note?.reason ?? null,
    status_code: note?.code ?? null,
    scheduled_at: s.runAt.toISOString(),
    created_at: s.now,
    purpose: s.purpose ?? 'conversation',
    schedule_follow_ups: s.scheduleFollowUps ? 1 : null,
    campaign_id: s.campaignId ?? null,
    in_reply_to: s.inReplyTo ?? null,
  });
  if (s.blocked) return id;
  const base = s.notBefore
    ? { messageId: id, sendWhenOff: s.sendWhenOff, notBefore: s.notBefore.toISOString() }
    : { messageId: id, sendWhenOff: s.sendWhenOff };
  if (s.byCall) {
    const call = {
      messageId: id,
      sendWhenOff: s.sendWhenOff,
      ...(s.overrideBusinessHours ? { overrideBusinessHours: true } : {}),
    };
    await enqueueJob(db, s.organizationId, 'message.call', call, s.runAt, s.now);
    return id;
  }
  const payload = s.overrideBusinessHours ? { ...base, overrideBusinessHours: true } : base;
  await enqueueJob(db, s.organizationId, 'message.send', payload, s.runAt, s.now);
  return id;
}

export type SendStatus = 'scheduled' | 'waiting' | 'blocked';

/**
 * A send the organization asks for. The gate is asked now as well as at send
 * time, so the answer already says what it decided: scheduled, waiting for
 * contact hours until a given time, or blocked with its reason (recorded so,
 * never queued). The gate at send time stays the judge: the lead may opt out
 * in between.
 */
export async function sendMessage(deps: Deps, organizationId: string, leadId: string, input: SendMessageInput) {
  const now = deps.clock.now();
  const requested = input.scheduledTime ? new Date(input.scheduledTime) : now;
  if (requested.getTime() - now.getTime() > MAX_AHEAD_MS)
    throw new DomainError('invalid_schedule', { field: 'scheduledTime' });
  const runAt = requested.getTime() < now.getTime() ? now : requested;
  const sendWhenOff = input.sendWhenOff ?? false;
  const scheduleFollowUps = input.scheduleFollowUps ?? false;
  return deps.db.transaction().execute(async (trx) => {
    const lead = await requireLead(trx, organizationId, leadId, true);
    const channel = defaultChannel(lead, input.channel === undefined ? undefined : toChannel(input.channel));
    const settings = await readSettings(trx, organizationId);
    const decision = await checkOutbound(trx, deps.digests, organizationId, {
      lead,
      channel,
      purpose: 'conversation',
      sendWhenOff,
      automated: false,
      settings,
      now: runAt,
      overrideBusinessHours: input.overrideBusinessHours ?? false,
    });
    const blocked = decision.kind === 'blocked' ? { code: decision.code, reason: decision.reason } : undefined;
    const waiting = decision.kind === 'wait' ? { code: decision.code, reason: decision.reason } : undefined;
    const sendAt = decision.kind === 'wait' ? decision.until : runAt;
    const id = await scheduleSend(trx, {
      organizationId,
      lead,
      channel,
      text: input.message,
      runAt: sendAt,
      sendWhenOff,
      isAiGenerated: false,
      now: now.toISOString(),
      overrideBusinessHours: input.overrideBusinessHours ?? false,
      scheduleFollowUps,
      blocked,
      waiting,
      notBefore: waiting && runAt > now ? runAt : undefined,
      // With Twilio, a voice message is a live call whose greeting it is (calls/message-call.ts, docs/voice.md).
      byCall: byLiveCall(deps, channel),
    });
    // A person writing to (or calling) the lead is the first human touch of its open hand-off (src/handoffs/).
    if (!blocked)
      await recordFirstTouch(trx, organizationId, leadId, channel === 'voice' ? 'call' : 'reply', now.toISOString());
    const status: SendStatus = blocked ? 'blocked' : waiting ? 'waiting' : 'scheduled';
    if (waiting)
      deps.log.info(
        { messageId: id, leadId, until: sendAt.toISOString(), reason: waiting.reason },
        `message waits until ${sendAt.toISOString()}: ${waiting.reason}`,
      );
    const note = blocked ?? waiting ?? null;
    return {
      id,
      channel,
      status,
      statusCode: note?.code ?? null,
      statusReason: note?.reason ?? null,
      scheduledTime: sendAt.toISOString(),
      scheduleFollowUps,
    };
  });
}

/**
 * What stands between the lead and any message on its default channel until
 * the lead (or the organization) changes it: no address, an opt-out of the
 * lead or of its address, the Do Not Contact list. The gate's own first three
 * steps (a `compliance` purpose stops there), asked ahead of time by campaign
 * enrollment so a lead is never left out silently; the gate at send time stays
 * the judge.
 */
export async function standingBlock(
  db: Db,
  digests: AddressDigests,
  organizationId: string,
  lead: LeadRow,
  settings: OrganizationSettings,
  now: Date,
): Promise<{ code: string; reason: string } | undefined> {
  const decision = await checkOutbound(db, digests, organizationId, {
    lead,
    channel: defaultChannel(lead),
    purpose: 'compliance',
    sendWhenOff: true,
    automated: false,
    settings,
    now,
  });
  return decision.kind === 'blocked' ? { code: decision.code, reason: decision.reason } : undefined;
}
