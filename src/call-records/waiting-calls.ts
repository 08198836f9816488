import { enqueueJob } from '../jobs/jobs.repository.js';
import type { LeadRow } from '../lead-records/leads.repository.js';
import { insertMessage } from '../messages/messages.repository.js';
import type { Db } from '../platform/db/schema.js';
import { newId } from '../platform/ids.js';
import { insertCall } from './calls.repository.js';
import { readVoiceSettings } from './voice-settings.js';

/** Whether the lead's opening is a call: its profile says call first (docs/voice.md) and the lead has a phone to call. */
export async function opensByCall(trx: Db, organizationId: string, lead: LeadRow): Promise<boolean> {
  if (!lead.phone) return false;
  return (await readVoiceSettings(trx, organizationId, lead.customer_profile)).callFirst === true;
}

export interface OpeningCall {
  organizationId: string;
  lead: LeadRow;
  /** The opening, rendered: the call's welcome greeting. */
  text: string;
  runAt: Date;
  now: Date;
  campaignId: string | null;
}

/**
 * An opening that is a call, in the caller's transaction. It is recorded as
 * an AI-generated voice message, as every opening is a message (the lead's
 * messages, the campaign's counts and "already opened" read it), but no send
 * job is queued for it: the call speaks it. The call waits, and its
 * `call.place` job asks the gate at `runAt` exactly as for a placed call
 * (calls.service.ts runWaitingCall), which also moves the message along:
 * blocked with the gate's code, sent once dialled, failed. Anything that
 * stops a scheduled message (a campaign paused, an opt-out) stops the call.
 */
export async function queueOpeningCall(trx: Db, o: OpeningCall): Promise<string> {
  const at = o.now.toISOString();
  const runAt = o.runAt.toISOString();
  const messageId = newId();
  const voice = await readVoiceSettings(trx, o.organizationId, o.lead.customer_profile);
  await insertMessage(trx, o.organizationId, {
    id: messageId,
    lead_id: o.lead.id,
    channel: 'voice',
    direction: 'outbound',
    owner: 'user',
    text: o.text,
    is_ai_generated: 1,
    status: 'scheduled',
    status_reason: 'an opening call: waits for its call to be dialled',
    scheduled_at: runAt,
    created_at: at,
    purpose: 'conversation',
    campaign_id: o.campaignId,
  });
  const callId = newId();
  await insertCall(trx, o.organizationId, {
    id: callId,
    lead_id: o.lead.id,
    direction: 'outbound',
    status: 'waiting',
    status_reason: 'opening call',
    to_number: o.lead.phone,
    voicemail_enabled: voice.voicemailEnabled ? 1 : 0,
    greeting: o.text,
    message_id: messageId,
    created_at: at,
    updated_at: at,
  });
  await enqueueJob(trx, o.organizationId, 'call.place', { callId }, o.runAt, at);
  return messageId;
}

/**
 * A follow-up step on the `call` channel, with Twilio configured: a live call
 * whose greeting is the step's message, queued as a waiting call so its job
 * asks the gate when it runs (calls/calls.service.ts runWaitingCall). Queued by
 * agent/followup.job.ts, in its transaction.
 */
export async function queueFollowUpCall(
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  step: number,
  greeting: string,
  voicemailEnabled: boolean | undefined,
  now: Date,
): Promise<string> {
  const id = newId();
  const at = now.toISOString();
  const voice = await readVoiceSettings(trx, organizationId, lead.customer_profile);
  await insertCall(trx, organizationId, {
    id,
    lead_id: lead.id,
    direction: 'outbound',
    status: 'waiting',
    status_reason: `follow-up step ${step}`,
    to_number: lead.phone,
    // The step or the profile: a step's `true` leaves it though the profile's is off, its explicit `false` is the
    // more specific choice and turns it off; a step that says nothing follows the profile (docs/voice.md).
    voicemail_enabled: (voicemailEnabled ?? voice.voicemailEnabled ?? false) ? 1 : 0,
    greeting,
    follow_up_step: step,
    created_at: at,
    updated_at: at,
  });
  await enqueueJob(trx, organizationId, 'call.place', { callId: id }, new Date(at), at);
  return id;
}
