import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { isToolName, toAction, TOOLS, type Action, type ToolName } from '../agent/provider.js';

/**
 * The agent's tools on a live call. What it says is its spoken answer (the
 * streamed content), so `reply` and `scheduleFollowUp` are not offered; the
 * other tools act as in a text conversation. `transferCall` hands the lead to
 * a person (warm transfer), `endCall` hangs up after the answer.
 */
const text = (maxLength: number, description: string) =>
  Type.String({ minLength: 1, maxLength, pattern: '\\S', description });

export const CALL_TOOLS = {
  transferCall: {
    description:
      'Put the lead through to a person now (warm transfer). The person hears your summary before the lead is connected. Say a short sentence first, e.g. "Let me connect you with a colleague."',
    parameters: Type.Object(
      {
        reason: text(1000, 'Why a person should take over'),
        summary: text(2000, 'What the person needs to know, in two or three sentences'),
      },
      { additionalProperties: false },
    ),
  },
  endCall: {
    description: 'End the call after what you say now (the conversation is over).',
    parameters: Type.Object({}, { additionalProperties: false }),
  },
};

const SHARED: ToolName[] = ['tagLead', 'markHot', 'markQualified', 'optOut', 'updateSummary'];

export type CallAction = { type: 'transferCall'; reason: string; summary: string } | { type: 'endCall' } | Action;

export function callToolDefinitions(): object[] {
  const shared = SHARED.map((name) => ({
    type: 'function',
    function: {
      name,
      description: TOOLS[name].description,
      parameters: JSON.parse(JSON.stringify(TOOLS[name].parameters)) as object,
    },
  }));
  const own = (Object.keys(CALL_TOOLS) as (keyof typeof CALL_TOOLS)[]).map((name) => ({
    type: 'function',
    function: {
      name,
      description: CALL_TOOLS[name].description,
      parameters: JSON.parse(JSON.stringify(CALL_TOOLS[name].parameters)) as object,
    },
  }));
  return [...shared, ...own];
}

/** One streamed tool call to an action; a malformed one is dropped (the call goes on), never half-applied. */
export function toCallAction(name: string, rawArguments: string): CallAction | null {
  let args: unknown = {};
  try {
    args = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
  } catch {
    return null;
  }
  if (name === 'transferCall')
    return Value.Check(CALL_TOOLS.transferCall.parameters, args)
      ? { type: 'transferCall', ...(args as Static<typeof CALL_TOOLS.transferCall.parameters>) }
      : null;
  if (name === 'endCall') return { type: 'endCall' };
  if (!isToolName(name) || !SHARED.includes(name)) return null;
  try {
    return toAction(name, args);
  } catch {
    return null;
  }
}

/** What the model is told about the call, after the usual system prompt. */
export const CALL_INSTRUCTIONS = [
  '',
  '## You are on a live phone call',
  'Everything you write as plain text is spoken aloud to the lead at once, as you write it: answer in short spoken sentences, no lists, no markdown, no links.',
  'Do not call reply: your text is your reply. Use the other tools for actions. Call transferCall when the lead wants a person or is ready to buy now; call endCall when the conversation is over.',
  'Digits the lead presses on the keypad reach you as "(pressed N)".',
].join('\n');
