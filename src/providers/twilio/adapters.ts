import { request } from 'undici';
import type { Config, TwilioConfig } from '../../platform/config.js';
import { classify, isPermanent } from '../../deliverability/error-codes.js';
import {
  SendError,
  type ChannelAdapter,
  type FoundSend,
  type OutboundMessage,
  type SendOutcome,
  type SendReceipt,
} from '../channel-adapter.js';

const TIMEOUT_MS = 15_000;

/**
 * Twilio's settings and how long a call may take: at most half the job's
 * lease, so a call ends (its outcome known, or recorded as unknown) before
 * the lease lapses and another claim looks at the message.
 */
type TwilioApi = TwilioConfig & { timeoutMs: number };
/** Where Twilio posts inbound SMS and delivery (MessageStatus) updates. */
export const twilioCallbackPaths = {
  sms: '/v1/providers/twilio/sms',
  status: '/v1/providers/twilio/status',
} as const;

interface TwilioError {
  code?: number;
  message?: string;
}

/** Network failures that happen before a request can reach Twilio: it cannot have taken the message. */
const NEVER_REACHED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * What an HTTP status from Twilio says of a create. 400 is Twilio's refusal
 * of the request itself (an invalid or unreachable number, a blocked
 * recipient: its 21xxx codes): permanent. Other 4xx (credentials, a wrong
 * account, 429) created nothing and may pass later. A 5xx may come after the
 * message was created: unknown.
 */
function outcomeOf(status: number, code: number | undefined): SendOutcome {
  // A code of the table decides first (deliverability/error-codes.ts): a permanent class is never retried, a transient one is.
  const cls = code === undefined ? 'unknown' : classify({ provider: 'twilio', code: String(code) }).class;
  if (isPermanent(cls)) return 'refused';
  if (cls === 'transient' && status < 500) return 'not_sent';
  if (status === 400) return 'refused';
  return status >= 500 ? 'unknown' : 'not_sent';
}

function headers(twilio: TwilioApi): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`,
    accept: 'application/json',
    'user-agent': 'Parley/1.0',
  };
}

/**
 * One call to Twilio's REST API (2010-04-01), basic auth with the account SID
 * and auth token. Anything but 2xx, a timeout or a network error throws a
 * SendError that says whether Twilio may have acted on it.
 */
async function call(twilio: TwilioApi, url: string, form?: Record<string, string>): Promise<unknown> {
  let res;
  try {
    res = await request(url, {
      method: form ? 'POST' : 'GET',
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      headers: { ...headers(twilio), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      signal: AbortSignal.timeout(twilio.timeoutMs),
    });
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e.name === 'TimeoutError' || e.name === 'AbortError')
      throw new SendError(`Twilio did not answer within ${twilio.timeoutMs} ms`, 'unknown');
    throw new SendError(
      `Twilio unreachable: ${e.code ?? e.name}`,
      NEVER_REACHED.has(e.code ?? '') ? 'not_sent' : 'unknown',
    );
  }
  let text: string;
  try {
    text = await res.body.text();
  } catch (err) {
    throw new SendError(
      `Twilio's answer was cut off: ${(err as Error & { code?: string }).code ?? (err as Error).name}`,
      'unknown',
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const e = (body ?? {}) as TwilioError;
    const detail = [e.code, e.message].filter((x) => x !== undefined && x !== '').join(' ');
    const code = typeof e.code === 'number' ? e.code : undefined;
    throw new SendError(
      `Twilio answered HTTP ${res.statusCode}${detail ? `: ${detail}` : ''}`.slice(0, 300),
      outcomeOf(res.statusCode, code),
      code === undefined ? undefined : { provider: 'twilio', code: String(code) },
    );
  }
  return body;
}

const resourceUrl = (twilio: TwilioApi, resource: 'Messages' | 'Calls') =>
  `${twilio.apiBaseUrl}/2010-04-01/Accounts/${encodeURIComponent(twilio.accountSid)}/${resource}.json`;

async function post(
  twilio: TwilioApi,
  resource: 'Messages' | 'Calls',
  fields: Record<string, string>,
): Promise<{ sid: string }> {
  const body = await call(twilio, resourceUrl(twilio, resource), fields);
  const sid = (body as { sid?: unknown } | undefined)?.sid;
  if (typeof sid !== 'string' || sid === '') throw new SendError('Twilio answered without a sid', 'unknown');
  return { sid };
}

/** One Message resource of Twilio's list, the fields reconciliation reads. */
interface TwilioMessage {
  sid: string;
  to: string;
  from: string;
  body: string;
  status: string;
  direction: string;
  date_created: string | null;
}

/** Twilio's message states in ours; a message Twilio holds in any other state (queued, sending, sent) went out as `sent`. */
const ADOPTED_STATES: Record<string, string> = {
  delivered: 'delivered',
  undelivered: 'undelivered',
  failed: 'failed',
  canceled: 'failed',
};

/** Clocks differ: a message Twilio dated up to this long before the attempt began is still a candidate. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** Pages of the list read at most; a search that does not end within them cannot decide. */
const MAX_PAGES = 20;

/**
 * The account's messages from `from` to `to` sent since `since` (Twilio's
 * `DateSent>=` filter takes a UTC day), every page (`next_page_uri`), that
 * carry exactly `text`: the candidates for an attempt whose answer was lost.
 */
async function findSent(twilio: TwilioApi, to: string, from: string, text: string, since: Date): Promise<FoundSend[]> {
  const earliest = since.getTime() - CLOCK_SKEW_MS;
  const query = new URLSearchParams({
    To: to,
    From: from,
    'DateSent>': new Date(earliest).toISOString().slice(0, 10),
    PageSize: '100',
  });
  let url: string | null = `${resourceUrl(twilio, 'Messages')}?${query.toString()}`;
  const found: FoundSend[] = [];
  for (let page = 0; url; page += 1) {
    if (page === MAX_PAGES) throw new Error(`Twilio's list of messages to this number ran past ${MAX_PAGES} pages`);
    const body = (await call(twilio, url)) as { messages?: TwilioMessage[]; next_page_uri?: string | null } | undefined;
    if (!body || !Array.isArray(body.messages))
      throw new Error('Twilio answered the message list without a messages array');
    for (const m of body.messages) {
      const created = m.date_created ? Date.parse(m.date_created) : NaN;
      // Date unknown: kept as a candidate (a duplicate is worse than a send left for an operator).
      if (
        m.body !== text ||
        m.from !== from ||
        m.to !== to ||
        !m.direction.startsWith('outbound') ||
        created < earliest
      )
        continue;
      found.push({ providerMessageId: m.sid, status: ADOPTED_STATES[m.status] ?? 'sent' });
    }
    url = body.next_page_uri ? `${twilio.apiBaseUrl}${body.next_page_uri}` : null;
  }
  return found;
}

function requireFrom(m: OutboundMessage): string {
  if (!m.from)
    throw new SendError(
      `no sending number: set sendingNumber with PATCH /v1/settings before sending ${m.channel}`,
      'not_sent',
    );
  return m.from;
}

/** SMS and voice through Twilio; `publicUrl` is where Twilio reaches our callbacks. */
export function twilioAdapters(config: Config & { twilio: TwilioConfig }): {
  sms: ChannelAdapter;
  voice: ChannelAdapter;
} {
  const { publicUrl } = config;
  const twilio: TwilioApi = { ...config.twilio, timeoutMs: Math.min(TIMEOUT_MS, Math.floor(config.leaseMs / 2)) };
  const sms: ChannelAdapter = {
    name: 'twilio-sms',
    inDoubt: 'ask',
    send: async (m): Promise<SendReceipt> => {
      const { sid } = await post(twilio, 'Messages', {
        To: m.to,
        From: requireFrom(m),
        Body: m.text,
        StatusCallback: publicUrl + twilioCallbackPaths.status,
      });
      return { providerMessageId: sid };
    },
    find: async (m, since) => findSent(twilio, m.to, requireFrom(m), m.text, since),
  };
  // Every voice message is a live call (calls/message-call.ts), never handed to an adapter: the channel needs an
  // adapter all the same (channels/registry.ts), and one reaching it is a bug, refused for good rather than dialled.
  const voice: ChannelAdapter = {
    name: 'twilio-voice',
    inDoubt: 'operator',
    send: async () => {
      throw new SendError('a voice message is spoken on a live call (message.call), not sent as a message', 'refused');
    },
  };
  return { sms, voice };
}
