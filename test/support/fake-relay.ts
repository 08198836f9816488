import WebSocket from 'ws';
import { twilioSign } from './twilio-webhooks.js';

/** A message Parley sent on the relay: `text` tokens, `end`, ... */
export type RelayOut = { type: string; token?: string; last?: boolean; handoffData?: string; at: number };

/**
 * Twilio's side of ConversationRelay, over a real WebSocket: it connects to
 * the URL the call's TwiML named (reached on the test server's address),
 * signing the handshake as Twilio does (X-Twilio-Signature over the wss/ws
 * URL, no parameters), then speaks the documented messages: setup, prompt,
 * interrupt, dtmf. Everything Parley sends back is recorded with its arrival time.
 */
export interface FakeRelay {
  received: RelayOut[];
  /** Sends a final prompt and waits for the answer's `last: true`; answers the tokens joined. */
  say(text: string): Promise<string>;
  send(message: object): void;
  setup(callSid: string, extra?: Record<string, unknown>): void;
  /** Waits until a received message passes `ok`. */
  waitFor(ok: (m: RelayOut) => boolean, ms?: number): Promise<RelayOut>;
  closed: Promise<number>;
  close(): void;
}

export async function connectRelay(
  serverUrl: string,
  relayUrl: string,
  token: string,
  signature?: string | null,
): Promise<FakeRelay> {
  const u = new URL(relayUrl);
  const target = serverUrl.replace(/^http/, 'ws') + u.pathname + u.search;
  const headers: Record<string, string> = {};
  const sig = signature === undefined ? twilioSign(relayUrl, {}, token) : signature;
  if (sig !== null) headers['x-twilio-signature'] = sig;
  const ws = new WebSocket(target, { headers });
  const received: RelayOut[] = [];
  const waiters = new Set<() => void>();
  ws.on('message', (data) => {
    received.push({ ...(JSON.parse(data.toString()) as object), at: performance.now() } as RelayOut);
    for (const w of [...waiters]) w();
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`handshake refused: HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
  const waitFor = (ok: (m: RelayOut) => boolean, ms = 10_000, from = 0): Promise<RelayOut> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = received.slice(from).find(ok);
        if (!found) return false;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`relay: no matching message within ${ms} ms; got ${JSON.stringify(received.slice(from))}`));
      }, ms);
      waiters.add(check);
      check();
    });
  const send = (message: object) => ws.send(JSON.stringify(message));
  return {
    received,
    send,
    setup: (callSid, extra = {}) =>
      send({
        type: 'setup',
        sessionId: `VX${callSid.slice(2)}`,
        accountSid: 'ACtest',
        callSid,
        from: '+15550000000',
        to: '+15550000001',
        direction: 'outbound-api',
        callType: 'PSTN',
        callStatus: 'IN-PROGRESS',
        customParameters: {},
        ...extra,
      }),
    say: async (text) => {
      const from = received.length;
      send({ type: 'prompt', voicePrompt: text, lang: 'en-US', last: true });
      const end = await waitFor((m) => (m.type === 'text' && m.last === true) || m.type === 'end', 10_000, from);
      const upto = received.indexOf(end);
      return received
        .slice(from, upto + 1)
        .filter((m) => m.type === 'text')
        .map((m) => m.token ?? '')
        .join('');
    },
    waitFor: (ok, ms) => waitFor(ok, ms),
    closed,
    close: () => ws.close(),
  };
}
