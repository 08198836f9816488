import { createServer, type Server } from 'node:http';
import WebSocket from 'ws';
import { twilioSignature } from '../../src/providers/twilio/signature.js';
import { openAllHoursOrganization } from '../lib/organization.js';
import { freePort, startParley } from '../lib/processes.js';
import type { Row } from '../lib/table.js';
import { daytimePhones } from '../lib/daytime-phones.js';

/**
 * Live-call latency: from a final `prompt` on the ConversationRelay socket to
 * the first `text` token back, less the streaming model's own first-token time
 * (request in to first token out, measured at the fake model). What is left
 * is Parley's: storing the lead's words, the opt-out recogniser, reading the
 * conversation, building the request and relaying the token. The real server
 * (`parley serve`, compiled) talks to a fake carrier (Calls.json), a fake
 * OpenAI-compatible model streaming server-sent events after FIRST_TOKEN_MS,
 * and a fake ConversationRelay peer over a real, signed WebSocket, all on
 * 127.0.0.1. Calls of TURNS turns each, one after another; the lead speaks
 * again LISTEN_MS after the answer's last token (the time to hear it).
 */

const SID = 'ACvoice';
const TOKEN = 'voice-token';
const SENDER = '+16285550191';
const FIRST_TOKEN_MS = 150;
const TURNS = 10;
/** The lead hears the answer before speaking again (a three-word answer takes about a second to say; this is less). */
const LISTEN_MS = 250;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

interface Fake {
  url: string;
  server: Server;
  close(): Promise<void>;
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<Fake> {
  const server = createServer(handler);
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const body = (req: import('node:http').IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

/** The carrier: Calls.json answers a sid and keeps the TwiML, by the number called. */
async function fakeCarrier() {
  const twiml = new Map<string, { sid: string; twiml: string }>();
  let n = 0;
  const fake = await listen(async (req, res) => {
    const form = new URLSearchParams(await body(req));
    n += 1;
    const sid = `CA${String(n).padStart(32, '0')}`;
    if (req.url?.endsWith('/Calls.json')) twiml.set(form.get('To') ?? '', { sid, twiml: form.get('Twiml') ?? '' });
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sid, status: 'queued' }));
  });
  return { ...fake, twiml };
}

/** The model: every request streams four tokens, the first FIRST_TOKEN_MS after the request arrived; records both instants. */
async function fakeModel() {
  const turns: { arrived: number; firstToken: number }[] = [];
  const fake = await listen(async (req, res) => {
    await body(req);
    const arrived = performance.now();
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    setTimeout(() => {
      turns.push({ arrived, firstToken: performance.now() });
      res.write(chunk('Sure'));
      res.write(chunk(', tell'));
      res.write(chunk(' me more.'));
      res.end('data: [DONE]\n\n');
    }, FIRST_TOKEN_MS);
  });
  return { ...fake, turns };
}

async function api(url: string, key: string, path: string, payload: unknown): Promise<any> {
  const res = await fetch(`${url}/v1${path}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

// Leads where it is daytime now: the night floor would hold every opening (bench/lib/daytime-phones.ts).
const nextPhone = daytimePhones(1_000_000);

/** One call: placed through the API, then TURNS prompts; answers each turn's prompt-to-first-token time. */
async function oneCall(url: string, key: string, carrier: Awaited<ReturnType<typeof fakeCarrier>>): Promise<number[]> {
  const phone = nextPhone();
  const lead = await api(url, key, '/leads/create', { firstName: 'Vox', phone });
  await api(url, key, `/leads/${lead.id}/call`, {});
  const placed = carrier.twiml.get(phone)!;
  const relayUrl = /<ConversationRelay url="([^"]+)"/.exec(placed.twiml)![1]!.replace(/&amp;/g, '&');
  const u = new URL(relayUrl);
  const ws = new WebSocket(url.replace(/^http/, 'ws') + u.pathname + u.search, {
    headers: { 'x-twilio-signature': twilioSignature(TOKEN, relayUrl, []) },
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let waiting: ((at: number, last: boolean) => void) | undefined;
  ws.on('message', (data) => {
    const m = JSON.parse(data.toString()) as { type: string; last?: boolean };
    if (m.type === 'text') waiting?.(performance.now(), m.last === true);
  });
  ws.send(JSON.stringify({ type: 'setup', callSid: placed.sid, from: SENDER, to: phone, direction: 'outbound-api' }));
  // The welcome greeting is spoken before the lead says anything.
  await sleep(LISTEN_MS);
  const times: number[] = [];
  for (let t = 0; t < TURNS; t += 1) {
    const sent = performance.now();
    let first = 0;
    await new Promise<void>((resolve) => {
      waiting = (at, last) => {
        if (first === 0) first = at;
        if (last) resolve();
      };
      ws.send(
        JSON.stringify({
          type: 'prompt',
          voicePrompt: `I would like to know more, question ${t}`,
          lang: 'en-US',
          last: true,
        }),
      );
    });
    times.push(first - sent);
    await sleep(LISTEN_MS);
  }
  ws.close();
  return times;
}

export async function voiceSection(dialect: 'sqlite' | 'postgres', databaseUrl: string, quick: boolean) {
  const carrier = await fakeCarrier();
  const model = await fakeModel();
  const key = await openAllHoursOrganization(databaseUrl, 'voice', SENDER);
  const port = await freePort();
  const parley = await startParley(databaseUrl, port, {
    TWILIO_ACCOUNT_SID: SID,
    TWILIO_AUTH_TOKEN: TOKEN,
    TWILIO_API_BASE_URL: carrier.url,
    PARLEY_PUBLIC_URL: `http://127.0.0.1:${port}`,
    PARLEY_AI_PROVIDER: 'openai',
    OPENAI_BASE_URL: `${model.url}/v1`,
    OPENAI_API_KEY: 'sk-bench',
    PARLEY_AI_MODEL: 'bench-model',
  });
  const calls = quick ? 5 : 20;
  const totals: number[] = [];
  try {
    await oneCall(parley.url, key, carrier); // warm-up
    model.turns.length = 0;
    for (let c = 0; c < calls; c += 1) totals.push(...(await oneCall(parley.url, key, carrier)));
  } finally {
    await parley.stop();
    await carrier.close();
    await model.close();
  }
  // Turn i's model time is the i-th request's: calls and turns run one after another.
  const modelMs = model.turns.map((t) => t.firstToken - t.arrived);
  const overhead = totals.map((total, i) => total - (modelMs[i] ?? FIRST_TOKEN_MS));
  const p50 = percentile(overhead, 50);
  const p99 = percentile(overhead, 99);
  const section = `voice-${dialect}`;
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const rows: Row[] = [
    {
      section,
      measure: `prompt to first text token, beyond the model's first token (${totals.length} turns, ${calls} calls) p50`,
      value: ms(p50),
      reference: `model ${FIRST_TOKEN_MS} ms`,
      ratio: '',
      target: '',
      met: null,
    },
    {
      section,
      measure: `prompt to first text token, beyond the model's first token (${totals.length} turns, ${calls} calls) p99`,
      value: ms(p99),
      reference: `model ${FIRST_TOKEN_MS} ms`,
      ratio: '',
      target: '<= 50 ms',
      met: p99 <= 50,
    },
  ];
  return { rows, raw: { overheadMs: overhead, totalMs: totals, modelMs } };
}
