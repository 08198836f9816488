import type { Action, AgentInput, AgentProvider, ConversationMessage } from './provider.js';
import { scriptedBooking } from './scripted-booking.js';

/**
 * The zero-setup agent: deterministic, no network. It works through the
 * profile's questions one per turn, in order; when every question has been
 * asked and answered it qualifies the lead, tags it, writes the answers into
 * the summary and says a closing line. Buying words mark the lead hot. A
 * pending command in one of the simple forms below takes the turn instead.
 * A profile without questions gets no scripted replies at all: there is
 * nothing the script could say that the organization wrote. The one
 * exception is an opening the organization asked for (switchCustomerProfile
 * with sendMessage to a profile without a template): a plain greeting.
 */

const HOT = /\b(buy|buying|ready|interested|asap|as soon as possible)\b/i;
const NEGATED = /\b(not|never|no|don't|dont|isn't|aren't|won't|wont)\s+(?:\w+\s+){0,2}(buy|buying|ready|interested)\b/i;

const SEND = /^\s*send (?:a |the )?message\s*:\s*(\S[\s\S]*)$/i;
const FOLLOW_UP = /^\s*follow[ -]?up in\s+(\d{1,6})\s*(minutes?|mins?|hours?|days?)\s*(?:[:,-]\s*([\s\S]*))?$/i;
const UNIT_MINUTES: Record<string, number> = { m: 1, h: 60, d: 24 * 60 };
/** "notify: <name>" (one of the profile's notifications) and "hand off[: <reason>]" (src/handoffs/). */
const NOTIFY = /^\s*notify\s*:\s*(\S[\s\S]*)$/i;
const HAND_OFF = /^\s*hand[ -]?off\s*(?:[:,-]\s*([\s\S]*))?$/i;

export function hotWord(text: string): string | null {
  if (NEGATED.test(text)) return null;
  return HOT.exec(text)?.[1]?.toLowerCase() ?? null;
}

/** "send message: <text>", "follow up in <N> minutes|hours|days: <text>", "notify: <name>" and "hand off: <reason>"; anything else is not understood (null). */
export function commandActions(command: string, input: AgentInput): Action[] | null {
  const send = SEND.exec(command);
  // biome-ignore lint/style/noNonNullAssertion: SEND's group 1 is not optional: a match always has it
  if (send) return [{ type: 'reply', text: send[1]!.trim() }];
  const notify = NOTIFY.exec(command);
  // biome-ignore lint/style/noNonNullAssertion: NOTIFY's group 1 is not optional: a match always has it
  if (notify) return [{ type: 'notify', name: notify[1]!.trim().slice(0, 100) }];
  const handOff = HAND_OFF.exec(command);
  if (handOff)
    return [{ type: 'handOff', ...(handOff[1]?.trim() ? { reason: handOff[1].trim().slice(0, 1000) } : {}) }];
  const follow = FOLLOW_UP.exec(command);
  if (follow) {
    // biome-ignore lint/style/noNonNullAssertion: FOLLOW_UP's group 2 is required and starts with m, h or d, the keys of UNIT_MINUTES
    const delayMinutes = Number(follow[1]) * UNIT_MINUTES[follow[2]!.toLowerCase()[0]!]!;
    const name = input.lead.firstName ? ` ${input.lead.firstName}` : '';
    const text = follow[3]?.trim() || `Hi${name}, just following up. Do you have any questions?`;
    return [{ type: 'scheduleFollowUp', delayMinutes: Math.max(1, delayMinutes), text }];
  }
  return null;
}

const same = (a: string, b: string) => a.trim() === b.trim();
/** A message asks a question when it is the question, or ends with it (the scripted opening greets, then asks the first). */
const asks = (message: string, question: string) =>
  same(message, question) || message.trim().endsWith(` ${question.trim()}`);

function lastIndexWhere<T>(items: T[], ok: (item: T) => boolean): number {
  // biome-ignore lint/style/noNonNullAssertion: i runs from items.length - 1 down to 0
  for (let i = items.length - 1; i >= 0; i -= 1) if (ok(items[i]!)) return i;
  return -1;
}

/** Where each question was last asked by the AI in this conversation (-1: not yet). */
function askedAt(questions: string[], conversation: ConversationMessage[]): number[] {
  return questions.map((q) =>
    lastIndexWhere(conversation, (m) => m.from === 'agent' && m.isAiGenerated && asks(m.text, q)),
  );
}

function answerAfter(conversation: ConversationMessage[], index: number): string {
  return (
    conversation
      .slice(index + 1)
      .find((m) => m.from === 'lead')
      ?.text.trim() ?? ''
  );
}

function questionActions(input: AgentInput): Action[] {
  const { questions } = input.profile;
  if (questions.length === 0) return [];
  const asked = askedAt(questions, input.conversation);
  const next = asked.findIndex((at) => at < 0);
  // biome-ignore lint/style/noNonNullAssertion: next is an index findIndex found in asked, which has one entry per question
  if (next >= 0) return [{ type: 'reply', text: questions[next]! }];
  if (input.lead.isQualified) return [];
  const summary = questions
    // biome-ignore lint/style/noNonNullAssertion: i is an index of questions, and asked has one entry per question
    .map((q, i) => `Q: ${q}\nA: ${answerAfter(input.conversation, asked[i]!) || '(no answer)'}`)
    .join('\n');
  const name = input.lead.firstName ? `, ${input.lead.firstName}` : '';
  return [
    { type: 'markQualified' },
    { type: 'tagLead', name: 'qualified', condition: 'answered all profile questions' },
    { type: 'updateSummary', summary },
    {
      type: 'reply',
      text: `Thank you${name}! That is everything I needed. Someone from our team will be in touch soon.`,
    },
  ];
}

/**
 * The scripted opening, for a profile without a template: a greeting by first
 * name, then the profile's first question (so the questions carry on from it
 * when the lead answers), or an open question when the profile has none.
 */
export function scriptedOpening(input: AgentInput): string {
  const hello = input.lead.firstName ? `Hi ${input.lead.firstName}!` : 'Hi!';
  const first = input.profile.questions[0]?.trim();
  return `${hello} ${first || 'Thanks for your interest. How can we help you today?'}`;
}

export function scriptedDecide(input: AgentInput): Action[] {
  if (input.task === 'opening') return [{ type: 'reply', text: scriptedOpening(input) }];
  const actions: Action[] = [];
  const last = input.conversation[lastIndexWhere(input.conversation, (m) => m.from === 'lead')];
  const word = last ? hotWord(last.text) : null;
  if (word && !input.lead.isHot) {
    actions.push({ type: 'markHot' });
    if (!input.lead.tags.some((t) => t.name === 'hot'))
      actions.push({ type: 'tagLead', name: 'hot', condition: `lead wrote "${word}"` });
  }
  // Within a turn's loop (a calendar tool answered), only the booking speaks; the rest was said in the first step.
  const booking = last ? scriptedBooking(input, last.text) : null;
  if ((input.steps?.length ?? 0) > 0) return booking ?? [];
  if (booking) return [...actions, ...booking];
  const commanded = input.commands.flatMap((c) => commandActions(c, input) ?? []);
  // A command the script understood is this turn's business; the questions wait for the next one.
  if (commanded.length > 0) return [...actions, ...commanded];
  return [...actions, ...questionActions(input)];
}

export const scriptedProvider: AgentProvider = {
  name: 'scripted',
  decide: async (input) => scriptedDecide(input),
};
