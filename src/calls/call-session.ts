import { applyActions } from '../agent/apply.js';
import { loadAgentInput } from '../agent/context.js';
import { chatMessages } from '../agent/prompt.js';
import type { Action, AgentInput } from '../agent/provider.js';
import { scriptedDecide } from '../agent/scripted.js';
import { recognise, type Recognition } from '../compliance/opt-out-recognizer.js';
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
import { findCall, setSpokenText, updateCall, type CallRow } from '../call-records/calls.repository.js';
import { OPTED_OUT_GOODBYE } from './calls.service.js';
import { CALL_INSTRUCTIONS, callToolDefinitions, toCallAction, type CallAction } from './call-tools.js';
import { streamChat } from './stream.js';

/** The peer of a relay session: Twilio's ConversationRelay (or the playground), one JSON message at a time. */
export interface RelayPeer {
  send(message: object): void;
  close(): void;
}

/** ConversationRelay's messages to us (docs/voice.md). */
export type RelayMessage =
  | {
      type: 'setup';
      callSid?: string;
      from?: string;
      to?: string;
      direction?: string;
      customParameters?: Record<string, string>;
    }
  | { type: 'prompt'; voicePrompt?: string; lang?: string; last?: boolean }
  | { type: 'interrupt'; utteranceUntilInterrupt?: string; durationUntilInterruptMs?: number }
  | { type: 'dtmf'; digit?: string }
  | { type: 'error'; description?: string };

const APOLOGY = 'Sorry, I am having trouble right now. Someone from our team will get back to you soon.';
const NOTHING_TO_SAY = 'Thank you. Someone from our team will follow up with you soon.';

/** Words of a scripted answer, each sent as its own token (with its space), as a model would stream them. */
const words = (text: string): string[] => text.match(/\S+\s*/g) ?? [];

interface Prepared {
  input: AgentInput;
  keywords: { optOut: string[]; optIn: string[] };
}

interface Speaking {
  abort: AbortController;
  /** What the lead heard when it was interrupted (utteranceUntilInterrupt). */
  heard?: string;
}

/**
 * One call's conversation over the relay. Each final `prompt` (and each DTMF
 * digit) is a turn: the lead's words are stored as a voice message and heard
 * by the same opt-out recogniser as an SMS (source `spoken`); then the agent
 * answers by streaming, every token sent as a `text` message as it arrives,
 * `last: true` at the end. Turns run one after another. An `interrupt` cuts
 * the answer being spoken and keeps only what the lead heard; one that comes
 * after the answer was stored shortens the stored answer the same way.
 */
export class CallSession {
  private call: CallRow | undefined;
  private chain: Promise<void> = Promise.resolve();
  private speaking: Speaking | undefined;
  private lastAgent: { id: string; text: string } | undefined;
  private ended = false;
  /**
   * What the next turn shows the agent, read ahead (at setup, then after each
   * turn): a final prompt goes to the model without a query in between.
   */
  private prepared: Promise<Prepared> | undefined;

  constructor(
    private readonly deps: Deps,
    private readonly organizationId: string,
    private readonly callId: string,
    private readonly peer: RelayPeer,
  ) {}

  handle(raw: string): void {
    let m: RelayMessage;
    try {
      m = JSON.parse(raw) as RelayMessage;
    } catch {
      return;
    }
    switch (m.type) {
      case 'setup':
        this.enqueue(() => this.setup(m));
        break;
      case 'prompt':
        if (m.last === false || typeof m.voicePrompt !== 'string' || m.voicePrompt.trim() === '') return;
        this.enqueue(() => this.turn(m.voicePrompt!.trim()));
        break;
      case 'dtmf':
        if (typeof m.digit === 'string' && /^[0-9*#wW]$/.test(m.digit))
          this.enqueue(() => this.turn(`(pressed ${m.digit})`));
        break;
      case 'interrupt':
        void this.interrupt(typeof m.utteranceUntilInterrupt === 'string' ? m.utteranceUntilInterrupt : '');
        break;
      case 'error':
        this.deps.log.warn({ callId: this.callId, description: m.description }, 'ConversationRelay reported an error');
        break;
    }
  }

  /** The socket closed: the call is over for the agent. */
  closed(): void {
    this.ended = true;
    this.speaking?.abort.abort();
  }

  /** Resolves when every turn received so far is done (tests and the bench). */
  idle(): Promise<void> {
    return this.chain;
  }

  private enqueue(step: () => Promise<void>): void {
    this.chain = this.chain
      .then(step)
      .catch((err: unknown) => this.deps.log.error({ err, callId: this.callId }, 'call turn failed'));
  }

  private async setup(m: Extract<RelayMessage, { type: 'setup' }>): Promise<void> {
    const at = this.deps.clock.now().toISOString();
    const call = await findCall(this.deps.db, this.organizationId, this.callId);
    if (!call || !call.lead_id || call.ended_at !== null) {
      this.peer.close();
      return;
    }
    this.call = call;
    await updateCall(this.deps.db, this.organizationId, call.id, {
      status: 'in-progress',
      answered_at: call.answered_at ?? at,
      provider_call_id: call.provider_call_id ?? m.callSid ?? null,
      updated_at: at,
    });
    // The welcome greeting is spoken by ConversationRelay itself as the call connects.
    // An opening call's greeting is already its opening message (call-records/waiting-calls.ts): not stored twice.
    if (call.greeting) {
      if (call.message_id) {
        this.lastAgent = { id: call.message_id, text: call.greeting };
        await this.utterance(this.deps.db, call.lead_id, call.message_id, 'outbound', call.greeting, at);
      } else this.lastAgent = await this.storeAgent(call.lead_id, call.greeting, at);
    }
    this.prepared = this.prepare(call.lead_id);
  }

  /** The agent's input and the opt-out keywords, read fresh; rejects when the lead is gone. */
  private prepare(leadId: string): Promise<Prepared> {
    const p = (async () => {
      const lead = await findLead(this.deps.db, this.organizationId, leadId);
      if (!lead) throw new Error('the lead was erased');
      const [{ input }, settings] = await Promise.all([
        loadAgentInput(this.deps.db, this.organizationId, lead, this.deps.clock.now()),
        readSettings(this.deps.db, this.organizationId),
      ]);
      return { input, keywords: { optOut: [...settings.optOutKeywords], optIn: [...settings.optInKeywords] } };
    })();
    p.catch(() => {}); // awaited by the next turn, which handles it
    return p;
  }

  /** The console's live transcript (docs/console.md): one `call.utterance` per utterance stored or shortened. */
  private utterance(
    db: Db,
    leadId: string,
    messageId: string,
    direction: 'inbound' | 'outbound',
    text: string,
    at: string,
  ) {
    return emitConsoleEvent(db, this.organizationId, at, 'call.utterance', {
      leadId,
      callId: this.callId,
      messageId,
      direction,
      text,
    });
  }

  private async storeAgent(leadId: string, text: string, at: string): Promise<{ id: string; text: string }> {
    const id = newId();
    await this.deps.db.transaction().execute(async (trx) => {
      await this.storeAgentIn(trx, id, leadId, text, at);
      await this.utterance(trx, leadId, id, 'outbound', text, at);
    });
    return { id, text };
  }

  private async storeAgentIn(db: Db, id: string, leadId: string, text: string, at: string): Promise<void> {
    await insertMessage(db, this.organizationId, {
      id,
      lead_id: leadId,
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
  }

  private async interrupt(heard: string): Promise<void> {
    if (this.speaking) {
      this.speaking.heard = heard;
      this.speaking.abort.abort();
      return;
    }
    // The answer was complete (last sent) but still being spoken: keep what was heard of it.
    const last = this.lastAgent;
    if (!last || heard.trim() === '' || heard.length >= last.text.length) return;
    this.lastAgent = { id: last.id, text: heard };
    const at = this.deps.clock.now().toISOString();
    await this.deps.db.transaction().execute(async (trx) => {
      await setSpokenText(trx, this.organizationId, last.id, heard.trim(), at);
      if (this.call?.lead_id) await this.utterance(trx, this.call.lead_id, last.id, 'outbound', heard.trim(), at);
    });
    // The next turn shows the agent what the lead heard, not what it meant to say.
    if (this.call?.lead_id && !this.speaking) this.prepared = this.prepare(this.call.lead_id);
  }

  /** Stores the lead's words and acts on an opt-out the recogniser heard in them, in one transaction. */
  private async receive(leadId: string, messageId: string, text: string, heard: Recognition, now: Date): Promise<void> {
    const at = now.toISOString();
    const { deps, organizationId } = this;
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
      await this.utterance(trx, leadId, messageId, 'inbound', text, at);
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

  /**
   * One turn: the lead said `text`. The recogniser hears it first (no I/O);
   * an opt-out is applied at once. Otherwise the model is asked from the
   * context read ahead, and the words are stored once the first token is
   * out: the first token waits for no query and no commit of ours.
   */
  private async turn(text: string): Promise<void> {
    const call = this.call;
    if (!call?.lead_id || this.ended || !this.prepared) return;
    const leadId = call.lead_id;
    let prepared: Prepared;
    try {
      prepared = await this.prepared;
    } catch {
      this.peer.close();
      return;
    }
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const heard = recognise(text, 'voice', prepared.keywords);
    const messageId = newId();
    if (heard.kind === 'stop') {
      await this.receive(leadId, messageId, text, heard, now);
      await this.storeAgent(leadId, OPTED_OUT_GOODBYE, at);
      this.end({ reasonCode: 'opted-out' });
      return;
    }
    // Stored once the first token is out (or the answer is over): a commit's fsync never holds the first token back.
    let startStoring = () => {};
    const storing = new Promise<void>((resolve) => {
      startStoring = resolve;
    }).then(() => this.receive(leadId, messageId, text, heard, now));
    storing.catch(() => {}); // awaited below
    const input: AgentInput = {
      ...prepared.input,
      now,
      conversation: [
        ...prepared.input.conversation,
        { from: 'lead', text, channel: 'voice', isAiGenerated: false, at },
      ],
    };

    const speaking: Speaking = { abort: new AbortController() };
    this.speaking = speaking;
    let said = '';
    const send = (token: string) => {
      if (speaking.abort.signal.aborted || this.ended) return;
      said += token;
      this.peer.send({ type: 'text', token, last: false });
      startStoring();
    };
    let actions: CallAction[] = [];
    try {
      actions = await this.answer(input, send, speaking.abort.signal);
    } catch (err) {
      this.deps.log.warn({ err, callId: this.callId }, 'the model could not answer on the call');
      if (said === '') send(APOLOGY);
    }
    if (said.trim() === '' && !speaking.abort.signal.aborted && actions.length === 0) send(NOTHING_TO_SAY);
    if (!speaking.abort.signal.aborted && !this.ended) this.peer.send({ type: 'text', token: '', last: true });
    this.speaking = undefined;
    startStoring();
    await storing;
    const heardText = (speaking.abort.signal.aborted ? (speaking.heard ?? said) : said).trim();
    if (heardText !== '')
      this.lastAgent = await this.storeAgent(leadId, heardText, this.deps.clock.now().toISOString());
    await this.act(leadId, messageId, actions);
    this.prepared = this.prepare(leadId);
  }

  /** The agent's answer: streamed from the model, or the scripted provider's words. Returns the actions it asked for. */
  private async answer(input: AgentInput, send: (token: string) => void, signal: AbortSignal): Promise<CallAction[]> {
    const ai = this.deps.config.ai;
    if (ai.provider === 'openai') {
      const messages = chatMessages(input);
      messages[0] = { role: 'system', content: messages[0]!.content + '\n' + CALL_INSTRUCTIONS };
      const streamed = await streamChat(ai, messages, callToolDefinitions(), send, signal);
      return streamed.toolCalls
        .map((c) => toCallAction(c.name, c.arguments))
        .filter((a): a is CallAction => a !== null);
    }
    const decided = scriptedDecide(input);
    for (const a of decided) if (a.type === 'reply') for (const w of words(`${a.text} `)) send(w);
    return decided.filter((a) => a.type !== 'reply' && a.type !== 'scheduleFollowUp');
  }

  private end(handoffData: Record<string, unknown>): void {
    if (this.ended) return;
    this.ended = true;
    this.peer.send({ type: 'end', handoffData: JSON.stringify(handoffData) });
  }

  /** The turn's actions, applied under the lead's lock; a transfer or an end closes the relay session after them. */
  private async act(leadId: string, triggerMessageId: string, actions: CallAction[]): Promise<void> {
    if (actions.length === 0) return;
    const shared = actions.filter((a): a is Action => a.type !== 'transferCall' && a.type !== 'endCall');
    const transfer = actions.find((a): a is Extract<CallAction, { type: 'transferCall' }> => a.type === 'transferCall');
    const now = this.deps.clock.now();
    const at = now.toISOString();
    await this.deps.db.transaction().execute(async (trx) => {
      const lead = await findLead(trx, this.organizationId, leadId, true);
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
    if (transfer) this.end({ reasonCode: 'live-agent-handoff', reason: transfer.reason, summary: transfer.summary });
    else if (actions.some((a) => a.type === 'endCall')) this.end({ reasonCode: 'completed' });
  }
}
