import { enqueueAgentTurn } from '../agent/turn.js';
import { addDncIn } from '../dnc/dnc.service.js';
import { emitEvents } from '../events/outbox.repository.js';
import { findLeadByAddress, updateLead, type LeadRow } from '../leads/leads.repository.js';
import { insertUnmatched } from './inbound.repository.js';
import { insertMessage } from '../messages/messages.repository.js';
import { scheduleSend } from '../messages/send.service.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { newId } from '../platform/ids.js';
import { normalizePhone } from '../platform/phone.js';
import { readSettings } from '../settings/settings.service.js';
import { reachableChannels, type ChannelName } from '../subscriptions/channels.js';
import { applyResubscribe, applyUnsubscribe } from '../subscriptions/subscriptions.service.js';
import { keywordOf, optOutIntentOf } from './keywords.js';

export interface InboundInput {
  channel: ChannelName;
  from: string;
  to?: string | null;
  text: string;
  providerMessageId?: string | null;
}

export type InboundAction = 'unmatched' | 'opted_out' | 'do_not_contact' | 'resubscribed' | 'help' | 'conversation' | 'ignored';

export interface InboundResult {
  leadId: string | null;
  messageId: string | null;
  action: InboundAction;
}

export const STOP_CONFIRMATION = 'You have been unsubscribed and will not receive more messages. Reply START to resubscribe.';
export const START_CONFIRMATION = 'You have been resubscribed. Reply STOP to unsubscribe, HELP for help.';

/**
 * The one pipeline every inbound message goes through, whatever the provider:
 * store it, mark the lead as having replied, announce it, then act on carrier
 * keywords and plain-language opt-outs before anything conversational. All in
 * one transaction: the message is never lost, and an opt-out it carries is
 * never half-applied. An unknown sender is recorded and never answered.
 */
export async function handleInbound(deps: Deps, organizationId: string, input: InboundInput): Promise<InboundResult> {
  const address = input.channel === 'email' ? input.from.trim().toLowerCase() : normalizePhone(input.from, deps.config.defaultCountry, 'from');
  const now = deps.clock.now();
  const at = now.toISOString();
  return deps.db.transaction().execute(async (trx): Promise<InboundResult> => {
    const lead = await findLeadByAddress(trx, organizationId, input.channel, address);
    if (!lead) {
      await insertUnmatched(trx, organizationId, { id: newId(), channel: input.channel, sender: address, recipient: input.to ?? null, text: input.text, created_at: at });
      return { leadId: null, messageId: null, action: 'unmatched' };
    }
    const messageId = newId();
    await insertMessage(trx, organizationId, {
      id: messageId, lead_id: lead.id, channel: input.channel, direction: 'inbound', owner: 'lead', text: input.text,
      is_ai_generated: 0, status: 'received', status_reason: null, scheduled_at: null, created_at: at,
      purpose: 'conversation', provider_message_id: input.providerMessageId ?? null,
    });
    await updateLead(trx, organizationId, lead.id, { has_replied: 1, last_activity_at: at, updated_at: at });
    await emitEvents(trx, organizationId, at, [{
      type: 'message.received',
      data: { messageId, leadId: lead.id, externalLeadId: lead.external_lead_id, channel: input.channel, from: address, text: input.text },
    }]);
    const action = await actOn(trx, deps, organizationId, lead, input, now);
    // The AI's turn is a durable job committed with the message (agent/turn.ts); it is skipped when the AI is off.
    if (action === 'conversation') await enqueueAgentTurn(trx, deps, lead, messageId, now);
    return { leadId: lead.id, messageId, action };
  });
}

async function reply(trx: Db, organizationId: string, lead: LeadRow, text: string, now: Date): Promise<void> {
  await scheduleSend(trx, {
    organizationId, lead, channel: 'sms', text, runAt: now, sendWhenOff: true, isAiGenerated: false, now: now.toISOString(), purpose: 'compliance',
  });
}

async function actOn(trx: Db, deps: Deps, organizationId: string, lead: LeadRow, input: InboundInput, now: Date): Promise<InboundAction> {
  const keyword = input.channel === 'sms' ? keywordOf(input.text) : null;
  if (keyword === 'stop') {
    const r = await applyUnsubscribe(trx, deps, organizationId, lead.id, ['sms'], { source: 'keyword', optOutMessage: input.text });
    if (r.changed.includes('sms')) await reply(trx, organizationId, lead, STOP_CONFIRMATION, now);
    return 'opted_out';
  }
  if (keyword === 'start') {
    const r = await applyResubscribe(trx, deps, organizationId, lead.id, ['sms'], { source: 'keyword' });
    // "YES" is also an ordinary answer: when nothing was opted out it is conversation.
    if (!r.changed.includes('sms')) return 'conversation';
    await reply(trx, organizationId, lead, START_CONFIRMATION, now);
    return 'resubscribed';
  }
  if (keyword === 'help') {
    await reply(trx, organizationId, lead, (await readSettings(trx, organizationId)).helpText, now);
    return 'help';
  }
  const intent = optOutIntentOf(input.text, input.channel);
  if (!intent) return 'conversation';
  if (intent.doNotContact && lead.phone) await addDncIn(trx, organizationId, lead.phone, 'message', now.toISOString());
  const reachable = reachableChannels(lead);
  const requested = intent.channels === 'all' ? reachable : intent.channels.filter((c) => reachable.includes(c));
  if (requested.length === 0) return 'ignored';
  await applyUnsubscribe(trx, deps, organizationId, lead.id, requested, {
    source: intent.doNotContact ? 'dnc' : 'message', optOutMessage: input.text, isDoNotContact: intent.doNotContact,
  });
  return intent.doNotContact ? 'do_not_contact' : 'opted_out';
}
