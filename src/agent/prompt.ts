import type { AgentInput } from './provider.js';
import { TOOLS, TOOL_NAMES, isCalendarTool, type ToolName } from './provider.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  /** An assistant message of an earlier step of this turn: the tools it called. */
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  /** A tool message: the call it answers. */
  tool_call_id?: string;
}

/** The tools this turn may use: the calendar tools only when the organization set a calendar. */
export const toolNamesFor = (input?: AgentInput): ToolName[] =>
  TOOL_NAMES.filter((name) => !isCalendarTool(name) || input?.calendar !== undefined);

const DEFAULT_INSTRUCTIONS = 'You talk with a lead on behalf of the organization. Be brief, friendly and truthful.';

/** What the model knows besides the conversation: the profile's instructions, the lead, the notes and any pending command. */
export function systemPrompt(input: AgentInput): string {
  const { lead, profile } = input;
  const lines = [
    profile.instructions?.trim() || DEFAULT_INSTRUCTIONS,
    '',
    '## Lead',
    `First name: ${lead.firstName}`,
    `Last name: ${lead.lastName}`,
    `Phone: ${lead.phone ?? '(none)'}`,
    `Email: ${lead.email ?? '(none)'}`,
    `Time zone: ${lead.timeZone ?? '(unknown)'}`,
    `Hot: ${lead.isHot ? 'yes' : 'no'}; qualified: ${lead.isQualified ? 'yes' : 'no'}`,
    `Tags: ${lead.tags.length === 0 ? '(none)' : lead.tags.map((t) => `${t.name} (${t.condition})`).join('; ')}`,
    `Summary so far: ${lead.summary ?? '(none)'}`,
    '',
    '## Additional info',
    JSON.stringify(lead.additionalInfo),
  ];
  if (profile.questions.length > 0)
    lines.push(
      '',
      '## Questions to work through with the lead, in order',
      ...profile.questions.map((q, i) => `${i + 1}. ${q}`),
    );
  if (profile.notifications?.length) {
    lines.push(
      '',
      '## Notifications: when one of these conditions first holds for this lead, call notify with its name',
      ...profile.notifications.map((n) => `- ${n.name}: ${n.condition}`),
    );
  }
  if (input.contextNotes.length > 0)
    lines.push('', '## Context notes from the organization', ...input.contextNotes.map((n) => `- ${n}`));
  if (input.commands.length > 0)
    lines.push(
      '',
      '## Command from the organization: carry it out in this turn',
      ...input.commands.map((c) => `- ${c}`),
    );
  if (input.calendar) {
    const cal = input.calendar;
    lines.push(
      '',
      '## Appointments',
      `The lead's time zone: ${cal.timeZone}; the lead's language: ${cal.locale}. Offer times in that zone, written in that language.`,
      "To offer times, call findSlots first (its answer comes back to you in this turn), then reply with a few of the labels. When the lead accepts one, call bookAppointment with that slot's start exactly. If a booking fails because the slot was taken, call findSlots again and offer other slots.",
      `Booked: ${cal.appointments.length === 0 ? '(none)' : cal.appointments.map((a) => `${a.label} (id ${a.id})`).join('; ')}`,
    );
    if (cal.offeredSlots.length > 0)
      lines.push(
        `Slots offered in the previous turn: ${cal.offeredSlots.map((s) => `${s.label} = ${s.start}`).join('; ')}`,
      );
  }
  if (input.task === 'opening') {
    lines.push(
      '',
      '## Task: the opening message',
      'The organization has just put this lead on this profile and asked for a first message to the lead. There is no message from the lead to answer.',
      'Write that opening message now, following the instructions above and using what you know about the lead (address them by first name when you know it). Keep it short, as a text message would be.',
      'Call reply exactly once with the message, and no other tool.',
    );
  }
  lines.push(
    '',
    '## How to act',
    `Act only through the tools (${toolNamesFor(input).join(', ')}). Text outside a tool call is never sent: to write to the lead, call reply.`,
    `Now: ${input.now.toISOString()}.`,
  );
  return lines.join('\n');
}

/** The system prompt, then the conversation since the memory was last cleared: the lead is `user`, our side `assistant`. */
export function chatMessages(input: AgentInput): ChatMessage[] {
  return [
    { role: 'system', content: systemPrompt(input) },
    ...input.conversation.map(
      (m): ChatMessage => ({ role: m.from === 'lead' ? 'user' : 'assistant', content: m.text }),
    ),
    ...stepMessages(input),
  ];
}

/**
 * This turn's earlier steps in the chat-completions format: each an assistant
 * message with its tool calls, then one tool message per call with what it
 * answered (an error as `{error}`). The ids are the turn's own (`s<step>c<call>`).
 */
function stepMessages(input: AgentInput): ChatMessage[] {
  return (input.steps ?? []).flatMap((step) => [
    {
      role: 'assistant' as const,
      content: null,
      tool_calls: step.actions.map((a, i) => {
        const { type, ...args } = a;
        return {
          id: step.results[i]?.id ?? `c${i}`,
          type: 'function' as const,
          function: { name: type, arguments: JSON.stringify(args) },
        };
      }),
    },
    ...step.results.map(
      (r): ChatMessage => ({
        role: 'tool',
        tool_call_id: r.id,
        content: JSON.stringify(r.ok ? r.result : { error: r.result }),
      }),
    ),
  ]);
}

/** The tools in the chat-completions format; the schemas are plain JSON (TypeBox's symbols dropped). */
export function toolDefinitions(input?: AgentInput) {
  return toolNamesFor(input).map((name) => ({
    type: 'function' as const,
    function: {
      name,
      description: TOOLS[name].description,
      parameters: JSON.parse(JSON.stringify(TOOLS[name].parameters)) as object,
    },
  }));
}
