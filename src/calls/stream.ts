import type { AiConfig } from '../platform/config.js';
import type { ChatMessage } from '../agent/prompt.js';

/** One tool call the model made while streaming, its arguments as they arrived (JSON text). */
export interface StreamedToolCall {
  name: string;
  arguments: string;
}

export interface StreamedAnswer {
  /** Every content token, joined: what the model said. */
  text: string;
  toolCalls: StreamedToolCall[];
  /** The stream was cut short by `signal` (an interruption): `text` is what had arrived. */
  aborted: boolean;
}

interface Delta {
  content?: string | null;
  tool_calls?: { index?: number; function?: { name?: string; arguments?: string } }[];
}

/**
 * Asks an OpenAI-compatible chat-completions endpoint with `stream: true` and
 * hands every content token to `onToken` as soon as its server-sent event is
 * read. Tool calls arrive in pieces (`delta.tool_calls[i]`, the name first,
 * the arguments in fragments) and are joined by their index. Ends on
 * `data: [DONE]` or the end of the body; `signal` cuts it short.
 */
export async function streamChat(
  config: AiConfig,
  messages: ChatMessage[],
  tools: object[],
  onToken: (token: string) => void,
  signal: AbortSignal,
): Promise<StreamedAnswer> {
  const { openaiBaseUrl, openaiApiKey, model, timeoutMs } = config;
  const body = { model, messages, stream: true, ...(tools.length > 0 ? { tools, tool_choice: 'auto' } : {}) };
  const answer: StreamedAnswer = { text: '', toolCalls: [], aborted: false };
  const calls: StreamedToolCall[] = [];
  let res: Response;
  try {
    res = await fetch(`${openaiBaseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${openaiApiKey ?? ''}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
  } catch (err) {
    if (signal.aborted) return { ...answer, aborted: true };
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError') throw new Error(`model did not answer within ${timeoutMs} ms`);
    throw new Error(`model request failed: ${e.cause?.code ?? e.name}`);
  }
  if (res.status < 200 || res.status > 299) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`model endpoint answered HTTP ${res.status}`);
  }
  if (!res.body) return answer;
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let done = false;
  const take = (line: string) => {
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (data === '[DONE]') {
      done = true;
      return;
    }
    let chunk: { choices?: { delta?: Delta }[] };
    try {
      chunk = JSON.parse(data) as typeof chunk;
    } catch {
      return; // a comment or a keep-alive a server may send
    }
    const delta = chunk.choices?.[0]?.delta;
    if (!delta) return;
    if (typeof delta.content === 'string' && delta.content !== '') {
      answer.text += delta.content;
      onToken(delta.content);
    }
    for (const piece of delta.tool_calls ?? []) {
      const i = piece.index ?? 0;
      const call = (calls[i] ??= { name: '', arguments: '' });
      if (piece.function?.name) call.name += piece.function.name;
      if (piece.function?.arguments) call.arguments += piece.function.arguments;
    }
  };
  try {
    while (!done) {
      const { done: ended, value } = await reader.read();
      if (ended) break;
      buffered += decoder.decode(value, { stream: true });
      let newline: number;
      while (!done && (newline = buffered.indexOf('\n')) >= 0) {
        take(buffered.slice(0, newline).replace(/\r$/, ''));
        buffered = buffered.slice(newline + 1);
      }
    }
    if (!done && buffered !== '') take(buffered);
  } catch (err) {
    if (signal.aborted) return { ...answer, toolCalls: calls.filter(Boolean), aborted: true };
    throw new Error(`model stream failed: ${(err as Error).name}`);
  } finally {
    if (!done) await reader.cancel().catch(() => {});
  }
  return { ...answer, toolCalls: calls.filter(Boolean), aborted: signal.aborted };
}
