import { Type, type Static, type TObject } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { ChannelName } from '../lead-records/channels.js';

/**
 * What the agent may do, as tools. Each tool's argument schema is the single
 * source of truth: it is the JSON schema the model is shown, the validator its
 * answer must pass, and (through Static) the TypeScript type of the action.
 * `pattern: '\S'` refuses blank text: an empty reply is garbage, not a message.
 */
const text = (maxLength: number, description: string) =>
  Type.String({ minLength: 1, maxLength, pattern: '\\S', description });
const args = <T extends Parameters<typeof Type.Object>[0]>(props: T) =>
  Type.Object(props, { additionalProperties: false });
const ChannelArg = Type.Union([Type.Literal('sms'), Type.Literal('voice'), Type.Literal('email')]);

export const TOOLS = {
  reply: {
    description:
      'Send a message to the lead now, on the channel the lead last wrote from. The only way to talk to the lead.',
    parameters: args({ text: text(4000, 'The message, as the lead will read it') }),
  },
  tagLead: {
    description: 'Put a tag on the lead, with the condition (why it applies).',
    parameters: args({
      name: text(100, 'Short tag name, e.g. qualified'),
      condition: text(500, 'Why the tag applies'),
    }),
  },
  markHot: { description: 'Mark the lead as hot (ready to buy soon).', parameters: args({}) },
  markQualified: { description: 'Mark the lead as qualified.', parameters: args({}) },
  scheduleFollowUp: {
    description: 'Schedule a message to the lead after a delay, on the channel the lead last wrote from.',
    parameters: args({
      delayMinutes: Type.Integer({ minimum: 1, maximum: 366 * 24 * 60, description: 'Minutes from now' }),
      text: text(4000, 'The follow-up message'),
    }),
  },
  optOut: {
    description:
      'Stop contacting the lead, because the lead asked for it. Without channels: every channel the lead can receive.',
    parameters: args({ channels: Type.Optional(Type.Array(ChannelArg, { minItems: 1, maxItems: 3 })) }),
  },
  handOff: {
    description: 'Hand the conversation to a human: the AI is turned off for this lead after this turn.',
    parameters: args({ reason: Type.Optional(text(1000, 'Why a human should take over')) }),
  },
  updateSummary: {
    description: 'Replace the summary of the conversation with the lead.',
    parameters: args({ summary: text(20_000, 'The whole summary, not a delta') }),
  },
  notify: {
    description:
      "Tell the team: one of the profile's notification conditions now holds for this lead. Name it exactly; call it once, when it first holds.",
    parameters: args({
      name: text(100, "The notification's name, as listed"),
      message: Type.Optional(text(1000, 'What happened, for the person alerted')),
    }),
  },
  // Calendar tools (appointments/, docs/appointments.md): offered only when the organization set a calendar.
  // Their results come back to the model within the same turn, before it answers the lead.
  findSlots: {
    description:
      "Look up free appointment slots in a window. Answers each slot's start (ISO) and a label in the lead's time zone and language: offer labels, book by start.",
    parameters: args({
      from: Type.Optional(
        Type.String({ minLength: 10, maxLength: 40, description: 'Window start (ISO 8601); default: now' }),
      ),
      to: Type.Optional(
        Type.String({ minLength: 10, maxLength: 40, description: 'Window end (ISO 8601); default: 7 days after from' }),
      ),
    }),
  },
  bookAppointment: {
    description: 'Book the slot the lead accepted. Fails when the slot was taken meanwhile: then offer other slots.',
    parameters: args({
      start: Type.String({
        minLength: 10,
        maxLength: 40,
        description: 'The slot start exactly as findSlots answered it',
      }),
      notes: Type.Optional(text(2000, 'What the meeting is about')),
    }),
  },
  rescheduleAppointment: {
    description: "Move the lead's booked appointment to another free slot.",
    parameters: args({
      appointmentId: text(200, 'The appointment to move'),
      start: Type.String({ minLength: 10, maxLength: 40, description: 'The new slot start, as findSlots answered it' }),
    }),
  },
  cancelAppointment: {
    description: "Cancel the lead's booked appointment.",
    parameters: args({
      appointmentId: text(200, 'The appointment to cancel'),
      reason: Type.Optional(text(1000, 'Why')),
    }),
  },
} satisfies Record<string, { description: string; parameters: TObject }>;

export type ToolName = keyof typeof TOOLS;
export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];

/** Tools run within the turn, their results shown to the model before it answers (agent/turn.ts); the others are applied at the end. */
export const CALENDAR_TOOLS = [
  'findSlots',
  'bookAppointment',
  'rescheduleAppointment',
  'cancelAppointment',
] as const satisfies readonly ToolName[];
export type CalendarToolName = (typeof CALENDAR_TOOLS)[number];
export const isCalendarTool = (name: string): name is CalendarToolName =>
  (CALENDAR_TOOLS as readonly string[]).includes(name);

export type Action = { [K in ToolName]: { type: K } & Static<(typeof TOOLS)[K]['parameters']> }[ToolName];

/** A turn with more actions than this is not a sensible answer. */
export const MAX_ACTIONS = 20;

/** The model's answer cannot be acted on. The turn fails (and is retried); nothing of it is applied. */
export class InvalidAgentAnswer extends Error {}

export function isToolName(name: string): name is ToolName {
  return Object.prototype.hasOwnProperty.call(TOOLS, name);
}

/** One tool call to one action, or an error naming what is wrong with it. Never partial. */
export function toAction(name: string, argumentsValue: unknown): Action {
  if (!isToolName(name)) throw new InvalidAgentAnswer(`unknown tool "${String(name).slice(0, 100)}"`);
  const schema = TOOLS[name].parameters;
  if (!Value.Check(schema, argumentsValue)) {
    const first = Value.Errors(schema, argumentsValue).First();
    const where = first?.path ? `${first.path} ` : '';
    throw new InvalidAgentAnswer(
      `invalid arguments for ${name}: ${where}${first?.message ?? 'does not match the schema'}`,
    );
  }
  return { type: name, ...(argumentsValue as object) } as Action;
}

/** Checks a whole list of actions, whoever produced it: anything malformed fails the turn. */
export function checkActions(actions: unknown): Action[] {
  if (!Array.isArray(actions)) throw new InvalidAgentAnswer('the agent did not answer with a list of actions');
  if (actions.length > MAX_ACTIONS)
    throw new InvalidAgentAnswer(`too many actions (${actions.length}, at most ${MAX_ACTIONS})`);
  return actions.map((a: unknown) => {
    if (!a || typeof a !== 'object' || typeof (a as { type?: unknown }).type !== 'string')
      throw new InvalidAgentAnswer('an action without a type');
    const { type, ...rest } = a as { type: string };
    return toAction(type, rest);
  });
}

export interface ConversationMessage {
  /** `lead`: the lead wrote it; `agent`: the organization's side (AI or human). */
  from: 'lead' | 'agent';
  text: string;
  channel: ChannelName;
  isAiGenerated: boolean;
  at: string;
}

/** Everything one turn may look at; built fresh from the database for each turn. */
export interface AgentInput {
  profile: {
    name: string;
    instructions: string | null;
    openingMessage: string | null;
    questions: string[];
    /** Plain-English notification conditions (src/handoffs/): the agent calls `notify` when one holds. */
    notifications?: { name: string; condition: string }[];
  };
  lead: {
    id: string;
    firstName: string;
    lastName: string;
    phone: string | null;
    email: string | null;
    timeZone: string | null;
    externalLeadId: string | null;
    isHot: boolean;
    isQualified: boolean;
    summary: string | null;
    tags: { name: string; condition: string }[];
    additionalInfo: Record<string, unknown>;
  };
  /** addContext notes, oldest first. */
  contextNotes: string[];
  /** Pending addContext commands, oldest first; consumed by the turn that applies. */
  commands: string[];
  /** Since the lead's memory was last cleared, oldest first; ends with the message that triggered the turn. */
  conversation: ConversationMessage[];
  now: Date;
  /** The organization's calendar, when it set one: the calendar tools are offered. */
  calendar?: AgentCalendar;
  /** This turn's earlier steps: the tools called and what they answered (agent/turn.ts). */
  steps?: AgentStep[];
  /**
   * `opening`: no lead message to answer; the profile asked for its first
   * message (a switch with sendMessage to a profile without a template). The
   * agent writes it with one `reply`; nothing else it answers is applied.
   */
  task?: 'opening';
}

export interface AgentCalendar {
  /** The lead's zone (as the gate finds it) and language: slots are offered in them. */
  timeZone: string;
  locale: string;
  /** The lead's booked appointments to come. */
  appointments: { id: string; start: string; end: string; label: string }[];
  /** Slots the previous turn found (what the lead was last offered), earliest first. */
  offeredSlots: { start: string; end: string; label: string }[];
}

/** One tool call of a step and what it answered: `ok` false carries the error the model is told. */
export interface ToolResult {
  id: string;
  name: string;
  ok: boolean;
  result: unknown;
}

export interface AgentStep {
  actions: Action[];
  results: ToolResult[];
}

export interface AgentProvider {
  readonly name: string;
  /** The actions for one turn. Throws on any failure (network, timeout, malformed answer): the turn is retried. */
  decide(input: AgentInput): Promise<Action[]>;
}
