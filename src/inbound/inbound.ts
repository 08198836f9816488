import { enqueueAgentTurn } from '../agent/turn.js';
import { addDncIn } from '../dnc/dnc.service.js';
import { emitEvents } from '../events/outbox.repository.js';
import { leadTaggedEvent, messageReceivedEvent } from '../events/payloads.js';
import { findLeadByAddress, updateLead, type LeadRow } from '../lead-records/leads.repository.js';
import { createInboundLead } from '../leads/inbound-lead.js';
import { followUpAfterReply } from '../followups/followups.service.js';
import { campaignsAfterInbound } from '../campaigns/campaigns.service.js';
import { claimReceipt, insertUnmatched } from './inbound.repository.js';
import { insertMessage } from '../messages/messages.repository.js';
import { scheduleSend } from '../messages/send.service.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { newId } from '../platform/ids.js';
import { normalizePhone } from '../platform/phone.js';
import { DEFAULT_SETTINGS, readSettings, type OrganizationSettings } from '../settings/settings.service.js';
import { reachableChannels, type ChannelName } from '../lead-records/channels.js';
import { applyResubscribe, applyUnsubscribe, suppressAddress } from '../subscriptions/subscriptions.service.js';
import { newTextOfReply } from '../compliance/email-reply.js';
import { optOutLanguage } from '../compliance/opt-out-language.js';
import { recognise, type Recognition } from '../compliance/opt-out-recognizer.js';
import type { OptOutSource } from '../subscriptions/consent-rules.js';
import type { InboundAction, InboundInput, InboundResult } from '../providers/inbound-pipeline.js';

/** The English STOP confirmation by default (settings.stopConfirmation holds the organization's, in English and Spanish). */
export const STOP_CONFIRMATION = DEFAULT_SETTINGS.stopConfirmation.en;
export const START_CONFIRMATION = 'You have been resubscribed. Reply STOP to unsubscribe, HELP for help.';

/**
 * The one pipeline every inbound message goes through, whatever the provider:
 * store it, mark the lead as having replied, announce it, then act on carrier
 * keywords and plain-language opt-outs before anything conversational. All in
 * one transaction: the message is never lost, and an opt-out it carries is
 * never half-applied. An unknown sender becomes a lead when the organization
 * asks for it (settings `inboundLeads`); otherwise they are recorded and never
 * answered.
 */
export async function handleInbound(deps: Deps, organizationId: string, input: InboundInput): Promise<InboundResult> {
  const address = addressOf(deps, input);
  return deps.db.transaction().execute((trx) => receive(trx, deps, organizationId, input, address, deps.clock.now()));
}

/**
 * A provider's webhook, processed at most once per `receiptId` (its own id of
 * the delivery: `twilio:<MessageSid>`, `twilio:<CallSid>:gather`). The id is
 * claimed in the same transaction, so a retry racing the first delivery waits
 * for it and then finds the id; a delivery that failed left no claim and is
 * processed when retried. Receipts are kept apart from any lead
 * (provider_receipts), so a replay after the lead's erasure is still known.
 */
export async function handleProviderInbound(
  deps: Deps,
  organizationId: string,
  input: InboundInput,
  receiptId: string,
): Promise<InboundResult | 'duplicate'> {
  const address = addressOf(deps, input);
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    if (!(await claimReceipt(trx, organizationId, receiptId, now.toISOString()))) return 'duplicate';
    return receive(trx, deps, organizationId, input, address, now);
  });
}

const addressOf = (deps: Deps, input: InboundInput): string =>
  input.channel === 'email'
    ? input.from.trim().toLowerCase()
    : normalizePhone(input.from, deps.config.defaultCountry, 'from');

async function receive(
  trx: Db,
  deps: Deps,
  organizationId: string,
  input: InboundInput,
  address: string,
  now: Date,
): Promise<InboundResult> {
  const at = now.toISOString();
  let lead = await findLeadByAddress(trx, organizationId, input.channel, address);
  // An unknown sender: the settings (inbound lead creation, the stop words) are read once for both uses.
  const settings = lead ? undefined : await readSettings(trx, organizationId);
  if (!lead && settings?.inboundLeads)
    lead = await createInboundLead(trx, deps, organizationId, input.channel, address, settings.inboundLeads, now);
  if (!lead) {
    await insertUnmatched(trx, organizationId, {
      id: newId(),
      channel: input.channel,
      sender: address,
      recipient: input.to ?? null,
      text: input.text,
      created_at: at,
    });
    const known = settings ?? (await readSettings(trx, organizationId)); // read above: no lead was found
    await bindStopOfUnknown(trx, deps, organizationId, known, input, address, now);
    return { leadId: null, messageId: null, action: 'unmatched' };
  }
  const messageId = newId();
  await insertMessage(trx, organizationId, {
    id: messageId,
    lead_id: lead.id,
    channel: input.channel,
    direction: 'inbound',
    owner: 'lead',
    text: input.text,
    subject: input.channel === 'email' && input.subject ? input.subject : null,
    is_ai_generated: 0,
    status: 'received',
    status_reason: null,
    scheduled_at: null,
    created_at: at,
    purpose: 'conversation',
    provider_message_id: input.providerMessageId ?? null,
  });
  await updateLead(trx, organizationId, lead.id, { has_replied: 1, last_activity_at: at, updated_at: at });
  // A reply ends the wait: no follow-up goes out unanswered after it (followups/).
  await followUpAfterReply(trx, organizationId, lead.id, now, lead);
  // The lead's first reply also tags it `hasReplied`, one of the reference's out-of-the-box leadTagged tags.
  await emitEvents(trx, organizationId, at, [
    messageReceivedEvent(lead, {
      id: messageId,
      channel: input.channel,
      from: address,
      text: input.text,
      subject: input.subject,
    }),
    ...(lead.has_replied === 1 ? [] : [leadTaggedEvent(lead, input.channel, 'hasReplied')]),
  ]);
  const action = await actOn(trx, deps, organizationId, lead, input, messageId, now);
  // The lead wrote: no campaign opening still waiting goes out to it (campaigns/).
  await campaignsAfterInbound(trx, organizationId, lead.id, action === 'opted_out' || action === 'do_not_contact', now);
  // The AI's turn is a durable job committed with the message (agent/turn.ts); it is skipped when the AI is off.
  if (action === 'conversation') await enqueueAgentTurn(trx, deps, lead, messageId, now);
  return { leadId: lead.id, messageId, action };
}

/**
 * A stop from an address no lead holds (and none was made of it) is not
 * answered, but it binds the address: opt-outs are kept by address and
 * outlive leads, so a lead made of it later, or the missed-call text to an
 * unknown caller, is held by it. A Do Not Contact request puts the number on
 * the list.
 */
async function bindStopOfUnknown(
  trx: Db,
  deps: Deps,
  organizationId: string,
  settings: OrganizationSettings,
  input: InboundInput,
  address: string,
  now: Date,
): Promise<void> {
  const { stop } = heardStop(settings, input);
  if (!stop) return;
  const words = input.channel === 'voice' ? null : input.text;
  if (stop.doNotContact && input.channel !== 'email')
    await addDncIn(trx, organizationId, address, 'message', now.toISOString(), words);
  const reach: ChannelName[] = input.channel === 'email' ? ['email'] : ['sms', 'voice'];
  const channels = stop.channels === 'all' ? reach : stop.channels.filter((c) => reach.includes(c));
  for (const channel of channels)
    await suppressAddress(trx, deps, organizationId, channel, { address }, sourceOf(stop, input.channel), {
      optOutMessage: words,
      actor: input.actor ?? null,
    });
}

/** A confirmation or HELP answer names the lead's message it answers: like any reply, it may go at night only within the reply window (compliance/gate.ts). */
async function reply(
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  text: string,
  now: Date,
  purpose: 'compliance' | 'stop_confirmation',
  inReplyTo: string,
): Promise<void> {
  await scheduleSend(trx, {
    organizationId,
    lead,
    channel: 'sms',
    text,
    runAt: now,
    sendWhenOff: true,
    isAiGenerated: false,
    now: now.toISOString(),
    purpose,
    inReplyTo,
  });
}

/** The words the recogniser reads: an email's new text only (never the quoted history or a signature), its subject when it is a keyword. */
function wordsOf(input: InboundInput): string[] {
  if (input.channel !== 'email') return [input.text];
  const subject = (input.subject ?? '').replace(/^\s*((re|fwd?|aw|rv)\s*:\s*)+/i, '');
  return [newTextOfReply(input.text), subject].filter((t) => t.trim() !== '');
}

type Stop = Extract<Recognition, { kind: 'stop' }>;

/**
 * What the recogniser hears in an inbound message, with the organization's own
 * keywords: the stop among its words (its text, an email's subject), if any,
 * and what its first words are (a START or HELP is read from those only).
 */
function heardStop(
  settings: Pick<OrganizationSettings, 'optOutKeywords' | 'optInKeywords'>,
  input: InboundInput,
): { stop: Stop | undefined; first: Recognition } {
  const custom = { optOut: settings.optOutKeywords, optIn: settings.optInKeywords };
  const heard = wordsOf(input).map((t) => recognise(t, input.channel, custom));
  return {
    stop: heard.find((h): h is Stop => h.kind === 'stop'),
    first: heard[0] ?? { kind: 'none' },
  };
}

function sourceOf(heard: Extract<Recognition, { kind: 'stop' }>, channel: ChannelName): OptOutSource {
  if (heard.doNotContact) return 'dnc';
  if (channel === 'voice') return 'voice';
  // Plain language keeps the source name earlier versions emitted in optOut events.
  return heard.via === 'keyword' ? 'keyword' : 'message';
}

/**
 * What the lead asked for. One recogniser hears every channel (opt-outs first,
 * in any phrasing it knows, English and Spanish); an LLM agent may add an
 * opt-out later (its `optOut` tool), never remove one heard here.
 */
async function actOn(
  trx: Db,
  deps: Deps,
  organizationId: string,
  lead: LeadRow,
  input: InboundInput,
  messageId: string,
  now: Date,
): Promise<InboundAction> {
  const settings = await readSettings(trx, organizationId);
  const { stop, first } = heardStop(settings, input);
  const who = { actor: input.actor ?? null, inboundMessageId: messageId };
  if (stop) {
    const source = sourceOf(stop, input.channel);
    // Words said on a call are not quoted back in events (the reference leaves optOutMessage out for calls).
    const optOutMessage = input.channel === 'voice' ? null : input.text;
    if (stop.doNotContact && lead.phone)
      await addDncIn(trx, organizationId, lead.phone, 'message', now.toISOString(), optOutMessage);
    const reachable = reachableChannels(lead);
    const requested = stop.channels === 'all' ? reachable : stop.channels.filter((c) => reachable.includes(c));
    if (requested.length === 0) return 'ignored';
    const r = await applyUnsubscribe(trx, deps, organizationId, lead.id, requested, {
      source,
      optOutMessage,
      isDoNotContact: stop.doNotContact,
      reason: input.channel === 'email' ? 'MANUAL' : null,
      ...who,
    });
    // Exactly one confirmation, by text, of the lead's own first STOP on sms (carriers expect it; a repeat gets none).
    // In the language the lead wrote it in (the organization's text for it).
    if (input.channel === 'sms' && r.updated.includes('sms') && !stop.doNotContact) {
      await reply(
        trx,
        organizationId,
        lead,
        settings.stopConfirmation[optOutLanguage(input.text)],
        now,
        'stop_confirmation',
        messageId,
      );
    }
    return stop.doNotContact ? 'do_not_contact' : 'opted_out';
  }
  if (first.kind === 'start') {
    const r = await applyResubscribe(
      trx,
      deps,
      organizationId,
      lead.id,
      [input.channel],
      { source: 'keyword', ...who },
      { kind: 'lead', channel: input.channel },
    );
    // "YES" is also an ordinary answer: when nothing was lifted it is conversation.
    if (!r.changed.includes('sms')) return 'conversation';
    await reply(trx, organizationId, lead, START_CONFIRMATION, now, 'compliance', messageId);
    return 'resubscribed';
  }
  if (first.kind === 'help') {
    if (input.channel !== 'sms') return 'conversation';
    await reply(trx, organizationId, lead, settings.helpText, now, 'compliance', messageId);
    return 'help';
  }
  return 'conversation';
}
