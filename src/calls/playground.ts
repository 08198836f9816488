import { randomBytes } from 'node:crypto';
import type { Action, AgentInput } from '../agent/provider.js';
import { agentFor } from '../agent/registry.js';
import { profileInput } from '../agent/context.js';
import { recognise, type Recognition } from '../compliance/opt-out-recognizer.js';
import type { LeadRow } from '../lead-records/leads.repository.js';
import type { Deps } from '../platform/deps.js';
import { NotFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { findProfileByName } from '../profile-records/profiles.repository.js';
import { readSettings } from '../settings/settings.service.js';
import type { ChannelName } from '../lead-records/channels.js';
import type { CallAction } from './call-tools.js';
import type { CallLedger, Prepared, Utterance } from './call-session.js';
import { greetingFor } from './calls.service.js';
import { readVoiceSettings } from '../call-records/voice-settings.js';

/**
 * The console's playground (docs/voice.md): an operator talks to a profile as
 * a lead, by text or as a simulated call, and nobody is contacted. The
 * sandbox conversation lives in this process's memory only: no lead, no
 * message, no event row is written, so no webhook is sent, nothing is
 * counted in analytics and no gate or provider is ever asked. What the
 * agent's tools would have done is shown as notes; the ones that only change
 * what the agent knows (tags, hot, qualified, the summary) are kept on the
 * sandbox so its next turn sees them.
 */

export interface SandboxMessage {
  id: string;
  from: 'lead' | 'agent';
  channel: ChannelName;
  text: string;
  at: string;
}

export interface Sandbox {
  id: string;
  organizationId: string;
  userId: string;
  profile: string;
  lead: { firstName: string; lastName: string };
  messages: SandboxMessage[];
  notes: { at: string; text: string }[];
  tags: { name: string; condition: string }[];
  summary: string | null;
  isHot: boolean;
  isQualified: boolean;
  /** Last used (ms): an idle sandbox is forgotten. */
  usedAt: number;
}

/** At most this many sandboxes per server; the least recently used goes first. One idle this long is forgotten. */
const MAX_SANDBOXES = 200;
const IDLE_MS = 60 * 60 * 1000;
/** A sandbox keeps its last messages only, as the agent sees at most this many. */
const MAX_MESSAGES = 100;

const sandboxes = new WeakMap<Deps, Map<string, Sandbox>>();
const registry = (deps: Deps): Map<string, Sandbox> => {
  let map = sandboxes.get(deps);
  if (!map) sandboxes.set(deps, (map = new Map()));
  return map;
};

export async function openSandbox(
  deps: Deps,
  organizationId: string,
  userId: string,
  input: { profile: string; firstName?: string; lastName?: string },
): Promise<Sandbox> {
  if (!(await findProfileByName(deps.db, organizationId, input.profile)))
    throw new NotFound('Customer profile', 'name', input.profile);
  const map = registry(deps);
  const now = Date.now();
  for (const [id, s] of map) if (now - s.usedAt > IDLE_MS) map.delete(id);
  // biome-ignore lint/style/noNonNullAssertion: the map holds at least MAX_SANDBOXES entries, so it has a first key
  while (map.size >= MAX_SANDBOXES) map.delete(map.keys().next().value!);
  const sandbox: Sandbox = {
    // Unguessable: the playground's WebSocket is named by it (and still needs the same user's session).
    id: randomBytes(18).toString('base64url'),
    organizationId,
    userId,
    profile: input.profile,
    lead: { firstName: input.firstName?.trim() || 'Alex', lastName: input.lastName?.trim() ?? '' },
    messages: [],
    notes: [],
    tags: [],
    summary: null,
    isHot: false,
    isQualified: false,
    usedAt: now,
  };
  map.set(sandbox.id, sandbox);
  return sandbox;
}

/** The user's own sandbox, or 404: another user's (or organization's) is not theirs to see. */
export function findSandbox(deps: Deps, organizationId: string, userId: string, id: string): Sandbox {
  const map = registry(deps);
  const s = map.get(id);
  if (!s || s.organizationId !== organizationId || s.userId !== userId || Date.now() - s.usedAt > IDLE_MS)
    throw new NotFound('Playground', 'id', id);
  s.usedAt = Date.now();
  map.delete(id);
  map.set(id, s); // most recently used last
  return s;
}

export function closeSandbox(deps: Deps, organizationId: string, userId: string, id: string): void {
  findSandbox(deps, organizationId, userId, id);
  registry(deps).delete(id);
}

/** The sandbox lead as the template renderer reads a lead (its names; nothing else is filled). */
const asLead = (s: Sandbox) =>
  ({ first_name: s.lead.firstName, last_name: s.lead.lastName, additional_info: null }) as unknown as LeadRow;

/** What the agent sees: the profile as stored, the sandbox lead and conversation. */
async function agentInput(deps: Deps, s: Sandbox): Promise<{ input: AgentInput; keywords: Prepared['keywords'] }> {
  const [profile, settings] = await Promise.all([
    findProfileByName(deps.db, s.organizationId, s.profile),
    readSettings(deps.db, s.organizationId),
  ]);
  if (!profile) throw new Error('the profile was deleted');
  const input: AgentInput = {
    profile: profileInput(s.profile, profile),
    lead: {
      id: `playground-${s.id.slice(0, 8)}`,
      firstName: s.lead.firstName,
      lastName: s.lead.lastName,
      phone: null,
      email: null,
      timeZone: null,
      externalLeadId: null,
      isHot: s.isHot,
      isQualified: s.isQualified,
      summary: s.summary,
      tags: [...s.tags],
      additionalInfo: {},
    },
    contextNotes: [],
    commands: [],
    conversation: s.messages.map((m) => ({
      from: m.from,
      text: m.text,
      channel: m.channel,
      isAiGenerated: m.from === 'agent',
      at: m.at,
    })),
    now: deps.clock.now(),
  };
  return { input, keywords: { optOut: [...settings.optOutKeywords], optIn: [...settings.optInKeywords] } };
}

function add(s: Sandbox, from: 'lead' | 'agent', channel: ChannelName, text: string, at: string, id = newId()) {
  s.messages.push({ id, from, channel, text, at });
  if (s.messages.length > MAX_MESSAGES) s.messages.splice(0, s.messages.length - MAX_MESSAGES);
  return { id, text };
}

/** What an opt-out heard would have done, as a note. */
function noteStop(s: Sandbox, heard: Recognition, channel: ChannelName, at: string): void {
  if (heard.kind !== 'stop') return;
  const channels =
    heard.channels === 'all' ? (channel === 'voice' ? 'voice' : 'every channel') : heard.channels.join(', ');
  s.notes.push({
    at,
    text: heard.doNotContact
      ? 'Would put the number on the Do Not Contact list and opt the lead out of every channel.'
      : `Would opt the lead out of ${channels}.`,
  });
}

/** The agent's actions on the sandbox: what only changes what it knows is kept; everything else is a note. */
function apply(s: Sandbox, actions: (Action | CallAction)[], at: string): void {
  for (const a of actions) {
    switch (a.type) {
      case 'reply':
        break;
      case 'tagLead':
        s.tags = [...s.tags.filter((t) => t.name !== a.name), { name: a.name, condition: a.condition }];
        s.notes.push({ at, text: `Tagged the lead "${a.name}" (${a.condition}).` });
        break;
      case 'markHot':
        s.isHot = true;
        s.notes.push({ at, text: 'Marked the lead hot.' });
        break;
      case 'markQualified':
        s.isQualified = true;
        s.notes.push({ at, text: 'Marked the lead qualified.' });
        break;
      case 'updateSummary':
        s.summary = a.summary;
        s.notes.push({ at, text: `Summary: ${a.summary}` });
        break;
      case 'transferCall':
        s.notes.push({ at, text: `Would transfer the call to a person (${a.reason}). Whisper: ${a.summary}` });
        break;
      case 'endCall':
        s.notes.push({ at, text: 'Ended the call.' });
        break;
      case 'scheduleFollowUp':
        s.notes.push({ at, text: `Would follow up in ${a.delayMinutes} minutes: ${a.text}` });
        break;
      default:
        s.notes.push({ at, text: `Would ${a.type} ${JSON.stringify({ ...a, type: undefined })}` });
    }
  }
}

/**
 * A text turn: the lead (the operator) wrote `text`. The same recogniser as
 * an SMS hears it first; then the configured agent decides as it does for a
 * text message (agentFor: the scripted agent, or the model), and its `reply`
 * texts are the answer. Nothing is sent.
 */
export async function playText(deps: Deps, s: Sandbox, text: string): Promise<string[]> {
  const now = deps.clock.now();
  const at = now.toISOString();
  const { input, keywords } = await agentInput(deps, s);
  add(s, 'lead', 'sms', text, at);
  const heard = recognise(text, 'sms', keywords);
  if (heard.kind === 'stop') {
    noteStop(s, heard, 'sms', at);
    return [];
  }
  const actions = await agentFor(deps.config).decide({
    ...input,
    conversation: [...input.conversation, { from: 'lead', text, channel: 'sms', isAiGenerated: false, at }],
  });
  const replies = actions.filter((a) => a.type === 'reply').map((a) => a.text);
  for (const r of replies) add(s, 'agent', 'sms', r, deps.clock.now().toISOString());
  apply(s, actions, at);
  return replies;
}

/** The greeting a simulated call starts with: the profile's welcome greeting for the sandbox lead, as a placed call's. */
export async function sandboxGreeting(deps: Deps, s: Sandbox): Promise<string> {
  return greetingFor(asLead(s), await readVoiceSettings(deps.db, s.organizationId, s.profile));
}

/** A simulated call's ledger: the relay session (call-session.ts) runs on the sandbox, in memory. */
export class SandboxLedger implements CallLedger {
  constructor(
    private readonly deps: Deps,
    private readonly sandbox: Sandbox,
  ) {}

  async open() {
    const greeting = await sandboxGreeting(this.deps, this.sandbox);
    const at = this.deps.clock.now().toISOString();
    this.sandbox.notes.push({ at, text: 'Simulated call started.' });
    return { greeting: add(this.sandbox, 'agent', 'voice', greeting, at) };
  }

  async prepare(): Promise<Prepared> {
    return { ...(await agentInput(this.deps, this.sandbox)), aiOn: true };
  }

  async receive(messageId: string, text: string, heard: Recognition, now: Date): Promise<void> {
    const at = now.toISOString();
    add(this.sandbox, 'lead', 'voice', text, at, messageId);
    noteStop(this.sandbox, heard, 'voice', at);
  }

  async storeAgent(text: string, at: string): Promise<Utterance> {
    return add(this.sandbox, 'agent', 'voice', text, at);
  }

  async shorten(id: string, text: string): Promise<void> {
    const m = this.sandbox.messages.find((x) => x.id === id);
    if (m) m.text = text;
  }

  async act(_trigger: string, actions: CallAction[], now: Date): Promise<void> {
    apply(this.sandbox, actions, now.toISOString());
  }
}
