import type { AiConfig } from '../platform/config.js';
import { chatMessages, toolDefinitions } from './prompt.js';
import {
  InvalidAgentAnswer,
  MAX_ACTIONS,
  toAction,
  type Action,
  type AgentInput,
  type AgentProvider,
} from './provider.js';

/** A model answer bigger than this is not one we would act on. */
const MAX_ANSWER_BYTES = 2 * 1024 * 1024;

async function readCapped(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel().catch(() => {});
      throw new InvalidAgentAnswer(`model answer larger than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

type ToolCall = { type?: unknown; function?: { name?: unknown; arguments?: unknown } };

function parseArguments(name: string, raw: unknown): unknown {
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw !== 'string') return raw; // some compatible servers send the object itself
  try {
    return JSON.parse(raw);
  } catch {
    throw new InvalidAgentAnswer(`arguments of ${name} are not valid JSON`);
  }
}

/** The tool calls of a chat-completions answer, every one valid, or an error: never a partial list. */
export function actionsFromAnswer(answer: unknown): Action[] {
  const message = (answer as { choices?: { message?: unknown }[] } | null)?.choices?.[0]?.message;
  if (!message || typeof message !== 'object') throw new InvalidAgentAnswer('model answer has no choices[0].message');
  const calls = (message as { tool_calls?: unknown }).tool_calls ?? [];
  if (!Array.isArray(calls)) throw new InvalidAgentAnswer('tool_calls is not a list');
  if (calls.length > MAX_ACTIONS)
    throw new InvalidAgentAnswer(`too many tool calls (${calls.length}, at most ${MAX_ACTIONS})`);
  return calls.map((call: ToolCall) => {
    if (!call || typeof call !== 'object' || (call.type !== undefined && call.type !== 'function'))
      throw new InvalidAgentAnswer('a tool call that is not a function call');
    const name = call.function?.name;
    if (typeof name !== 'string') throw new InvalidAgentAnswer('a tool call without a function name');
    return toAction(name, parseArguments(name, call.function?.arguments));
  });
}

/**
 * Any OpenAI-compatible chat-completions endpoint. Every failure throws (the
 * turn is retried, then recorded as failed): a timeout, a non-2xx answer, a
 * body that is not JSON, an unknown tool, arguments that are not valid JSON or
 * do not match the tool's schema. Error texts name the failure but never carry
 * the endpoint's body: they are shown to API clients, the key is not theirs.
 */
export class OpenAiProvider implements AgentProvider {
  readonly name = 'openai';

  constructor(private readonly config: AiConfig) {}

  async decide(input: AgentInput): Promise<Action[]> {
    const { openaiBaseUrl, openaiApiKey, model, timeoutMs } = this.config;
    const body = { model, messages: chatMessages(input), tools: toolDefinitions(input), tool_choice: 'auto' };
    let status: number;
    let text: string;
    try {
      const res = await fetch(`${openaiBaseUrl}/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${openaiApiKey ?? ''}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.status;
      text = await readCapped(res);
    } catch (err) {
      if (err instanceof InvalidAgentAnswer) throw err;
      const e = err as Error & { cause?: { code?: string } };
      if (e.name === 'TimeoutError' || e.name === 'AbortError')
        throw new Error(`model did not answer within ${timeoutMs} ms`);
      throw new Error(`model request failed: ${e.cause?.code ?? e.name}`);
    }
    if (status < 200 || status > 299) throw new Error(`model endpoint answered HTTP ${status}`);
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new InvalidAgentAnswer('model answer is not valid JSON');
    }
    return actionsFromAnswer(answer);
  }
}
