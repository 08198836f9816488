import type { AgentInput } from '../agent/provider.js';
import { chatMessages } from '../agent/prompt.js';
import { scriptedDecide } from '../agent/scripted.js';
import { recognise, type Recognition } from '../compliance/opt-out-recognizer.js';
import type { Deps } from '../platform/deps.js';
import { newId } from '../platform/ids.js';
import { OPTED_OUT_GOODBYE } from './calls.service.js';
import { CALL_INSTRUCTIONS, callToolDefinitions, toCallAction, type CallAction } from './call-tools.js';
import { streamChat } from './stream.js';

/** The peer of a relay session: Twilio's ConversationRelay (or the console's playground), one JSON message at a time. */
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
export type SetupMessage = Extract<RelayMessage, { type: 'setup' }>;

/** What the next turn shows the agent, read ahead. */
export interface Prepared {
  input: AgentInput;
  keywords: { optOut: string[]; optIn: string[] };
  /** The AI is on for the lead: when it is not (a person took over), the agent does not answer. */
  aiOn: boolean;
}

/** One utterance of the agent, as stored. */
export interface Utterance {
  id: string;
  text: string;
}

/**
 * Where a session's conversation is kept and what its turns change: the
 * call's rows and the lead in the database for a real call (call-ledger.ts),
 * memory only for the console's playground (playground.ts), which contacts
 * nobody. The session (below) is the same for both.
 */
export interface CallLedger {
  /** At setup: the greeting the relay spoke (stored as the agent's first utterance), or null to refuse the session. */
  open(m: SetupMessage): Promise<{ greeting: Utterance | undefined } | null>;
  /** The agent's input, the opt-out keywords and whether the AI is on, read fresh; rejects when the lead is gone. */
  prepare(): Promise<Prepared>;
  /** The lead said `text` (heard by the recogniser as `heard`): stored, and an opt-out in it applied. */
  receive(messageId: string, text: string, heard: Recognition, now: Date): Promise<void>;
  storeAgent(text: string, at: string): Promise<Utterance>;
  /** An interruption: the stored answer becomes what the lead heard of it. */
  shorten(id: string, text: string, at: string): Promise<void>;
  /** The tools the agent called in a turn (a transfer is recorded for the end of the session). */
  act(triggerMessageId: string, actions: CallAction[], now: Date): Promise<void>;
}

const APOLOGY = 'Sorry, I am having trouble right now. Someone from our team will get back to you soon.';
const NOTHING_TO_SAY = 'Thank you. Someone from our team will follow up with you soon.';

/** Words of a scripted answer, each sent as its own token (with its space), as a model would stream them. */
const words = (text: string): string[] => text.match(/\S+\s*/g) ?? [];

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
  private opened = false;
  private chain: Promise<void> = Promise.resolve();
  private speaking: Speaking | undefined;
  private lastAgent: Utterance | undefined;
  private ended = false;
  /**
   * What the next turn shows the agent, read ahead (at setup, then after each
   * turn): a final prompt goes to the model without a query in between.
   */
  private prepared: Promise<Prepared> | undefined;

  constructor(
    private readonly deps: Deps,
    private readonly ledger: CallLedger,
    private readonly peer: RelayPeer,
    /** Names the session in log lines: a call, or the console's playground. */
    private readonly label: string,
  ) {}

  handle(raw: string): void {
    let m: RelayMessage;
    try {
      m = JSON.parse(raw) as RelayMessage;
    } catch {
      return;
    }
    if (!m || typeof m !== 'object') return;
    switch (m.type) {
      case 'setup':
        this.enqueue(() => this.setup(m));
        break;
      case 'prompt':
        if (m.last === false || typeof m.voicePrompt !== 'string' || m.voicePrompt.trim() === '') return;
        // biome-ignore lint/style/noNonNullAssertion: checked to be a non-empty string on the line above; the closure loses the narrowing
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
        this.deps.log.warn({ session: this.label, description: m.description }, 'ConversationRelay reported an error');
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
      .catch((err: unknown) => this.deps.log.error({ err, session: this.label }, 'call turn failed'));
  }

  private async setup(m: SetupMessage): Promise<void> {
    if (this.opened) return;
    const opened = await this.ledger.open(m);
    if (!opened) {
      this.peer.close();
      return;
    }
    this.opened = true;
    this.lastAgent = opened.greeting;
    this.prepared = this.prepare();
  }

  private prepare(): Promise<Prepared> {
    const p = this.ledger.prepare();
    p.catch(() => {}); // awaited by the next turn, which handles it
    return p;
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
    await this.ledger.shorten(last.id, heard.trim(), this.deps.clock.now().toISOString());
    // The next turn shows the agent what the lead heard, not what it meant to say.
    if (this.opened && !this.speaking) this.prepared = this.prepare();
  }

  /**
   * One turn: the lead said `text`. The recogniser hears it first (no I/O);
   * an opt-out is applied at once. Otherwise the model is asked from the
   * context read ahead, and the words are stored once the first token is
   * out: the first token waits for no query and no commit of ours.
   */
  private async turn(text: string): Promise<void> {
    if (!this.opened || this.ended || !this.prepared) return;
    const { ledger } = this;
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
      await ledger.receive(messageId, text, heard, now);
      await ledger.storeAgent(OPTED_OUT_GOODBYE, at);
      this.end({ reasonCode: 'opted-out' });
      return;
    }
    if (!prepared.aiOn) {
      // A person took the lead over (the AI is off): the agent says no more than that someone will follow up.
      await ledger.receive(messageId, text, heard, now);
      this.peer.send({ type: 'text', token: NOTHING_TO_SAY, last: true });
      this.lastAgent = await ledger.storeAgent(NOTHING_TO_SAY, at);
      this.end({ reasonCode: 'completed' });
      return;
    }
    // Stored once the first token is out (or the answer is over): a commit's fsync never holds the first token back.
    let startStoring = () => {};
    const storing = new Promise<void>((resolve) => {
      startStoring = resolve;
    }).then(() => ledger.receive(messageId, text, heard, now));
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
      this.deps.log.warn({ err, session: this.label }, 'the model could not answer on the call');
      if (said === '') send(APOLOGY);
    }
    if (said.trim() === '' && !speaking.abort.signal.aborted && actions.length === 0) send(NOTHING_TO_SAY);
    if (!speaking.abort.signal.aborted && !this.ended) this.peer.send({ type: 'text', token: '', last: true });
    this.speaking = undefined;
    startStoring();
    await storing;
    const heardText = (speaking.abort.signal.aborted ? (speaking.heard ?? said) : said).trim();
    if (heardText !== '') this.lastAgent = await ledger.storeAgent(heardText, this.deps.clock.now().toISOString());
    if (actions.length > 0) await ledger.act(messageId, actions, this.deps.clock.now());
    const transfer = actions.find((a): a is Extract<CallAction, { type: 'transferCall' }> => a.type === 'transferCall');
    if (transfer) this.end({ reasonCode: 'live-agent-handoff', reason: transfer.reason, summary: transfer.summary });
    else if (actions.some((a) => a.type === 'endCall')) this.end({ reasonCode: 'completed' });
    this.prepared = this.prepare();
  }

  /** The agent's answer: streamed from the model, or the scripted provider's words. Returns the actions it asked for. */
  private async answer(input: AgentInput, send: (token: string) => void, signal: AbortSignal): Promise<CallAction[]> {
    const ai = this.deps.config.ai;
    if (ai.provider === 'openai') {
      const messages = chatMessages(input);
      // biome-ignore lint/style/noNonNullAssertion: chatMessages() always starts with the system message
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
}
