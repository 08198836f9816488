import { checkOutbound } from '../compliance/gate.js';
import { emitEvents } from '../events/outbox.repository.js';
import { findLead, updateLead } from '../leads/leads.repository.js';
import type { JobOutcome, SendMessagePayload } from '../jobs/names.js';
import { findMessage, setMessageStatus, type MessageRow } from '../messages/messages.repository.js';
import type { Deps } from '../platform/deps.js';
import { readSettings } from '../settings/settings.service.js';
import { adapterFor } from './registry.js';

type Step = { kind: 'skip' } | { kind: 'blocked' } | { kind: 'wait'; until: Date; reason: string } | { kind: 'send'; message: MessageRow; to: string; from: string | null };

/**
 * Sends one recorded outbound message, and is the only code that calls a
 * channel adapter. The gate is asked under the lead's lock, right before the
 * send; a blocked send is recorded on the message with its reason (never
 * dropped), a send outside contact hours waits for the window. Idempotent: a
 * message already sent or blocked is left alone when the job runs again.
 */
export async function sendRecordedMessage(deps: Deps, organizationId: string, payload: SendMessagePayload, lastAttempt: boolean): Promise<JobOutcome> {
  const now = deps.clock.now();
  const step = await deps.db.transaction().execute(async (trx): Promise<Step> => {
    const message = await findMessage(trx, organizationId, payload.messageId);
    if (!message || (message.status !== 'scheduled' && message.status !== 'sending')) return { kind: 'skip' };
    const lead = await findLead(trx, organizationId, message.lead_id, true);
    if (!lead) return { kind: 'skip' };
    const settings = await readSettings(trx, organizationId);
    const decision = await checkOutbound(trx, organizationId, { lead, channel: message.channel, sendWhenOff: payload.sendWhenOff, settings, now, purpose: message.purpose });
    const set = (status: string, reason: string | null) => setMessageStatus(trx, organizationId, message.id, status, reason);
    if (decision.kind === 'blocked') {
      await set('blocked', decision.reason);
      return { kind: 'blocked' };
    }
    if (decision.kind === 'wait') {
      await set('scheduled', decision.reason);
      return decision;
    }
    await set('sending', null);
    return { kind: 'send', message, to: message.channel === 'email' ? lead.email! : lead.phone!, from: message.channel === 'email' ? null : settings.sendingNumber };
  });

  if (step.kind === 'skip' || step.kind === 'blocked') return { kind: 'done' };
  if (step.kind === 'wait') return { kind: 'defer', until: step.until, reason: step.reason };

  const { message } = step;
  let providerMessageId: string | null = null;
  try {
    ({ providerMessageId } = await adapterFor(deps, message.channel).send({ organizationId, messageId: message.id, leadId: message.lead_id, channel: message.channel, to: step.to, from: step.from, text: message.text }));
  } catch (err) {
    if (!lastAttempt) throw err;
    await setMessageStatus(deps.db, organizationId, message.id, 'failed', `provider error: ${(err as Error).message}`.slice(0, 500));
    return { kind: 'done' };
  }
  const at = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    await setMessageStatus(trx, organizationId, message.id, 'sent', null, providerMessageId);
    const lead = await findLead(trx, organizationId, message.lead_id);
    if (lead) await updateLead(trx, organizationId, lead.id, { last_activity_at: at });
    await emitEvents(trx, organizationId, at, [
      {
        type: 'message.sent',
        data: {
          messageId: message.id, leadId: message.lead_id, externalLeadId: lead?.external_lead_id ?? null,
          channel: message.channel, text: message.text, isAiGenerated: message.is_ai_generated === 1,
        },
      },
    ]);
  });
  return { kind: 'done' };
}
