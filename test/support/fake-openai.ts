import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A fake OpenAI-compatible chat-completions server: real HTTP on 127.0.0.1,
 * so the real client code (fetch, timeouts, parsing) is what gets tested. It
 * checks the bearer key, records every request, and answers with programmed
 * behaviours, chosen by a marker found in the request (e.g. a lead's phone).
 */

export interface FakeToolCall {
  name: string;
  /** A string is sent as is (so tests can send broken JSON); anything else is JSON-encoded. */
  arguments: unknown;
}

export type FakeBehaviour =
  | { kind: 'tools'; calls: FakeToolCall[]; content?: string | null; delayMs?: number }
  | { kind: 'status'; status: number }
  | { kind: 'raw'; body: string }
  | { kind: 'hang' }
  /** `stream: true` (server-sent events): content tokens, `firstTokenMs` after the request, then one every `tokenMs`; then the tool calls, then [DONE]. */
  | { kind: 'stream'; tokens: string[]; calls?: FakeToolCall[]; firstTokenMs?: number; tokenMs?: number };

export interface RecordedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  authorized: boolean;
  body: any;
}

export interface FakeOpenAi {
  /** The base URL to configure as OPENAI_BASE_URL (ends with /v1). */
  url: string;
  key: string;
  requests: RecordedRequest[];
  /** Requests whose text contains the marker. */
  requestsFor(marker: string): RecordedRequest[];
  /** Behaviours for requests containing the marker, used in order; the last one repeats. */
  program(marker: string, ...behaviours: FakeBehaviour[]): void;
  close(): Promise<void>;
}

export const tools = (...calls: FakeToolCall[]): FakeBehaviour => ({ kind: 'tools', calls });
export const call = (name: string, args: unknown = {}): FakeToolCall => ({ name, arguments: args });
/** A streamed answer: the tokens spoken, then any tool calls. */
export const stream = (
  tokens: string[],
  opts: { calls?: FakeToolCall[]; firstTokenMs?: number; tokenMs?: number } = {},
): FakeBehaviour => ({ kind: 'stream', tokens, ...opts });

/**
 * Writes an OpenAI streaming answer: `chat.completion.chunk` events whose
 * `delta` carries the role, each content token, then each tool call (name
 * and arguments in two pieces, as real servers split them), a finish reason,
 * and `data: [DONE]`. Stops early when the client goes away.
 */
function streamAnswer(res: ServerResponse, b: Extract<FakeBehaviour, { kind: 'stream' }>, model: string): void {
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 12)}`;
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(chunk({ role: 'assistant', content: '' }));
  let gone = false;
  res.on('close', () => {
    gone = true;
  });
  const tokens = [...b.tokens];
  const finish = () => {
    if (gone) return;
    (b.calls ?? []).forEach((c, index) => {
      const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
      const half = Math.floor(args.length / 2);
      res.write(
        chunk({
          tool_calls: [
            {
              index,
              id: `call_${index}`,
              type: 'function',
              function: { name: c.name, arguments: args.slice(0, half) },
            },
          ],
        }),
      );
      res.write(chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
    });
    res.write(chunk({}, (b.calls ?? []).length > 0 ? 'tool_calls' : 'stop'));
    res.end('data: [DONE]\n\n');
  };
  const next = () => {
    if (gone) return;
    const token = tokens.shift();
    if (token === undefined) return finish();
    res.write(chunk({ content: token }));
    if (b.tokenMs) setTimeout(next, b.tokenMs);
    else next();
  };
  setTimeout(next, b.firstTokenMs ?? 0);
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json' }).end(text);
}

function completion(b: Extract<FakeBehaviour, { kind: 'tools' }>, model: string) {
  const toolCalls = b.calls.map((c, i) => ({
    id: `call_${i}_${Math.random().toString(36).slice(2, 10)}`,
    type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2, 12)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: b.content ?? null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

export async function startFakeOpenAi(key = 'sk-test-fake-openai-key'): Promise<FakeOpenAi> {
  const requests: RecordedRequest[] = [];
  const programs: { marker: string; behaviours: FakeBehaviour[]; used: number }[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      const authorized = req.headers.authorization === `Bearer ${key}`;
      requests.push({ path: req.url ?? '', headers: req.headers, authorized, body });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
        return answer(res, 404, { error: { message: 'not found' } });
      if (!authorized)
        return answer(res, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
      const program = programs.find((p) => raw.includes(p.marker));
      const behaviour: FakeBehaviour = program
        ? program.behaviours[Math.min(program.used++, program.behaviours.length - 1)]!
        : { kind: 'tools', calls: [] };
      switch (behaviour.kind) {
        case 'hang':
          return; // never answers; the socket is destroyed on close()
        case 'status':
          return answer(res, behaviour.status, {
            error: { message: 'The server had an error while processing your request.' },
          });
        case 'raw':
          return answer(res, 200, behaviour.body);
        case 'stream':
          return streamAnswer(res, behaviour, String(body?.model));
        case 'tools': {
          const send = () => answer(res, 200, completion(behaviour, String(body?.model)));
          if (behaviour.delayMs) setTimeout(send, behaviour.delayMs);
          else send();
        }
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    key,
    requests,
    requestsFor: (marker) => requests.filter((r) => JSON.stringify(r.body).includes(marker)),
    program: (marker, ...behaviours) => {
      if (behaviours.length === 0) throw new Error('program needs at least one behaviour');
      programs.unshift({ marker, behaviours, used: 0 });
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
