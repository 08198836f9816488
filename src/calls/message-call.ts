import type { JobOutcome, JobPayloads } from '../jobs/names.js';
import { findLead } from '../lead-records/leads.repository.js';
import { findMessage } from '../messages/messages.repository.js';
import type { Deps } from '../platform/deps.js';
import { newId } from '../platform/ids.js';
import { findCallForMessage, insertCall } from '../call-records/calls.repository.js';
import { runWaitingCall } from './calls.service.js';
import { readVoiceSettings } from '../call-records/voice-settings.js';

/**
 * The `message.call` job: a message on the voice channel (sendMessage, or
 * the agent's reply or follow-up after a call, docs/voice.md) is a live call
 * whose greeting is the message. The message was recorded, and judged by the
 * gate, as any message; when its time comes the call is recorded waiting,
 * pointing at it (as an opening call does: its status follows the call), and
 * placed by the same path as every call: the gate asked again under the
 * lead's lock (a person's message not automated, the agent's automated and
 * within its reply window), the voice pool's pace, then ConversationRelay.
 * Nothing is queued twice: a message that is no longer scheduled (an
 * opt-out, an erasure meanwhile) or already has its call is left alone.
 */
export async function callForMessage(
  deps: Deps,
  organizationId: string,
  payload: JobPayloads['message.call'],
): Promise<JobOutcome> {
  const now = deps.clock.now().toISOString();
  const callId = await deps.db.transaction().execute(async (trx) => {
    const message = await findMessage(trx, organizationId, payload.messageId);
    if (message?.status !== 'scheduled' || message.channel !== 'voice') return null;
    const existing = await findCallForMessage(trx, organizationId, message.lead_id, message.id);
    if (existing) return existing.id;
    const lead = await findLead(trx, organizationId, message.lead_id, true);
    if (!lead) return null;
    const voice = await readVoiceSettings(trx, organizationId, lead.customer_profile);
    const id = newId();
    await insertCall(trx, organizationId, {
      id,
      lead_id: lead.id,
      direction: 'outbound',
      status: 'waiting',
      status_reason: message.is_ai_generated === 1 ? "the agent's message, sent as a call" : 'a message sent as a call',
      to_number: lead.phone,
      voicemail_enabled: voice.voicemailEnabled ? 1 : 0,
      greeting: message.text,
      message_id: message.id,
      // The agent's reply or follow-up on the voice channel (agent/apply.ts) is the agent's call: automated, capped.
      placed_by_person: message.is_ai_generated === 1 ? 0 : 1,
      override_business_hours: payload.overrideBusinessHours ? 1 : null,
      send_when_off: payload.sendWhenOff ? 1 : null,
      created_at: now,
      updated_at: now,
    });
    return id;
  });
  if (!callId) return { kind: 'done' };
  return runWaitingCall(deps, organizationId, callId);
}
