import { applyActions } from '../agent/apply.js';
import { loadAgentInput } from '../agent/context.js';
import type { Action } from '../agent/provider.js';
import type { Recognition } from '../compliance/opt-out-recognizer.js';
import { addDncIn } from '../dnc/dnc.service.js';
import { emitConsoleEvent, emitEvents } from '../events/outbox.repository.js';
import { messageReceivedEvent } from '../events/payloads.js';
import { followUpAfterReply } from '../followups/followups.service.js';
import { findLead, updateLead } from '../lead-records/leads.repository.js';
import { insertMessage } from '../messages/messages.repository.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { newId } from '../platform/ids.js';
import { readSettings } from '../settings/settings.service.js';
import { reachableChannels, type ChannelName } from '../lead-records/channels.js';
import { applyUnsubscribe } from '../subscriptions/subscriptions.service.js';
import type { CallAction } from './call-tools.js';
import type { CallLedger, Prepared, SetupMessage, Utterance } from './call-session.js';
import { findCall, setSpokenText, updateCall, type CallRow } from '../call-records/calls.repository.js';

/**
 * A real call's ledger: the call's row, the lead's messages and what the
 * agent's tools change, in the database. Every utterance is stored as a
 * voice message and announced to the console (`call.utterance`); an opt-out
 * heard on the call is applied like a text one (source `spoken`).
 */
export class DbCallLedger implements CallLedger {
  private call: CallRow | undefined;

  constructor(
    private readonly deps: Deps,
    private readonly organizationId: string,
    private readonly callId: string,
  ) {}

  private get leadId(): string {
    // biome-ignore lint/style/noNonNullAssertion: read only after open() stored a call that has a lead_id (it returns null otherwise)
    return this.call!.lead_id!;
  }

  async open(m: SetupMessage): Promise<{ greeting: Utterance | undefined } | null> {
    const at = this.deps.clock.now().toISOString();
    const call = await findCall(this.deps.db, this.organizationId, this.callId);
    if (!call || !call.lead_id || call.ended_at !== null) return null;
    this.call = call;
    await updateCall(this.deps.db, this.organizationId, call.id, {
      status: 'in-progress',
      answered_at: call.answered_at ?? at,
      provider_call_id: call.provider_call_id ?? m.callSid ?? null,
      updated_at: at,
    });
    // The welcome greeting is spoken by ConversationRelay itself as the call connects.
    // An opening call's greeting is already its opening message (call-records/waiting-calls.ts): not stored twice.
    if (!call.greeting) return { greeting: undefined };
    if (call.message_id) {
      await this.utterance(this.deps.db, call.message_id, 'outbound', call.greeting, at);
      return { greeting: { id: call.message_id, text: call.greeting } };
    }
    return { greeting: await this.storeAgent(call.greeting, at) };
  }

  prepare(): Promise<Prepared> {
    return (async () => {
      const lead = await findLead(this.deps.db, this.organizationId, this.leadId);
      if (!lead) throw new Error('the lead was erased');
      const [{ input }, settings] = await Promise.all([
        loadAgentInput(this.deps.db, this.organizationId, lead, this.deps.clock.now()),
        readSettings(this.deps.db, this.organizationId),
      ]);
      return {
        input,
        keywords: { optOut: [...settings.optOutKeywords], optIn: [...settings.optInKeywords] },
        aiOn: lead.is_ai_on === 1,
      };
    })();
  }

  /** The console's live transcript (docs/console.md): one `call.utterance` per utterance stored or shortened. */
  private utterance(db: Db, messageId: string, direction: 'inbound' | 'outbound', text: string, at: string) {
    return emitConsoleEvent(db, this.organizationId, at, 'call.utterance', {
      leadId: this.leadId,
      callId: this.callId,
      messageId,
      direction,
      text,
    });
  }

  async storeAgent(text: string, at: string): Promise<Utterance> {
    const id = newId();
    await this.deps.db.transaction().execute(async (trx) => {
      await insertMessage(trx, this.organizationId, {
        id,
        lead_id: this.leadId,
        channel: 'voice',
        direction: 'outbound',
        owner: 'user',
        text,
        is_ai_generated: 1,
        status: 'spoken',
        status_reason: null,
        scheduled_at: at,
        created_at: at,
        purpose: 'conversation',
        updated_at: at,
      });
      await this.utterance(trx, id, 'outbound', text, at);
    });
    return { id, text };
  }

  async shorten(id: string, text: string, at: string): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      await setSpokenText(trx, this.organizationId, id, text, at);
      await this.utterance(trx, id, 'outbound', text, at);
    });
  }

  /** Stores the lead's words and acts on an opt-out the recogniser heard in them, in one transaction. */
  async receive(messageId: string, text: string, heard: Recognition, now: Date): Promise<void> {
    const at = now.toISOString();
    const { deps, organizationId, leadId } = this;
    await deps.db.transaction().execute(async (trx) => {
      const current = await findLead(trx, organizationId, leadId, true);
      if (!current) return;
      await insertMessage(trx, organizationId, {
        id: messageId,
        lead_id: leadId,
        channel: 'voice',
        direction: 'inbound',
        owner: 'lead',
        text,
        is_ai_generated: 0,
        status: 'received',
        status_reason: null,
        scheduled_at: null,
        created_at: at,
        purpose: 'conversation',
        provider_message_id: this.call?.provider_call_id ?? null,
      });
      await updateLead(trx, organizationId, leadId, { has_replied: 1, last_activity_at: at, updated_at: at });
      // The lead answered: no follow-up goes out unanswered after it (followups/), as for a text reply.
      await followUpAfterReply(trx, organizationId, leadId, now);
      await emitEvents(trx, organizationId, at, [
        messageReceivedEvent(current, { id: messageId, channel: 'voice', from: current.phone ?? '', text }),
      ]);
      await this.utterance(trx, messageId, 'inbound', text, at);
      if (heard.kind !== 'stop') return;
      const actor = `twilio:${this.call?.provider_call_id ?? 'relay'}`;
      if (heard.doNotContact && current.phone) await addDncIn(trx, organizationId, current.phone, 'message', at, null);
      const reachable = reachableChannels(current);
      // Said on a call, a plain "stop" is about calls at least; the recogniser's channels when it named some.
      const requested: ChannelName[] =
        heard.channels === 'all'
          ? heard.doNotContact
            ? reachable
            : ['voice']
          : heard.channels.filter((c) => reachable.includes(c));
      if (requested.length > 0) {
        await applyUnsubscribe(trx, deps, organizationId, leadId, requested, {
          source: heard.doNotContact ? 'dnc' : 'spoken',
          optOutMessage: null,
          isDoNotContact: heard.doNotContact,
          actor,
          inboundMessageId: messageId,
        });
      }
      await updateCall(trx, organizationId, this.callId, { outcome: 'opted-out', updated_at: at });
    });
  }

  /** The turn's actions, applied under the lead's lock; a transfer is recorded on the call for its action callback. */
  async act(triggerMessageId: string, actions: CallAction[], now: Date): Promise<void> {
    const shared = actions.filter((a): a is Action => a.type !== 'transferCall' && a.type !== 'endCall');
    const transfer = actions.find((a): a is Extract<CallAction, { type: 'transferCall' }> => a.type === 'transferCall');
    const at = now.toISOString();
    await this.deps.db.transaction().execute(async (trx) => {
      const lead = await findLead(trx, this.organizationId, this.leadId, true);
      if (!lead) return;
      if (shared.length > 0)
        await applyActions(
          trx,
          this.deps,
          { organizationId: this.organizationId, lead, channel: 'voice', now, triggerMessageId },
          shared,
        );
      if (transfer) {
        const handoffData = JSON.stringify({
          reasonCode: 'live-agent-handoff',
          reason: transfer.reason,
          summary: transfer.summary,
        });
        await updateCall(trx, this.organizationId, this.callId, {
          handoff_data: handoffData,
          summary: transfer.summary,
          updated_at: at,
        });
      }
    });
  }
}
