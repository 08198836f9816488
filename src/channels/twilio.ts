import { request } from 'undici';
import type { Config, TwilioConfig } from '../platform/config.js';
import { sayAndGather } from './twiml.js';
import type { ChannelAdapter, OutboundMessage, SendReceipt } from './channel.js';

const TIMEOUT_MS = 15_000;
/** Twilio's limit on the `Twiml` parameter of a call. */
const MAX_TWIML_CHARS = 4000;

/** Where Twilio posts delivery (MessageStatus) and call (CallStatus) updates, and the speech a call gathers. */
export const twilioCallbackPaths = {
  sms: '/v1/providers/twilio/sms',
  status: '/v1/providers/twilio/status',
  gather: '/v1/providers/twilio/voice/gather',
} as const;

interface TwilioError {
  code?: number;
  message?: string;
}

/**
 * One form-encoded POST to Twilio's REST API (2010-04-01), basic auth with the
 * account SID and auth token. Anything but 2xx, a timeout or a network error
 * throws: the send job retries it, and records the last error on the message
 * when its retries are spent.
 */
async function post(twilio: TwilioConfig, resource: 'Messages' | 'Calls', fields: Record<string, string>): Promise<{ sid: string }> {
  const url = `${twilio.apiBaseUrl}/2010-04-01/Accounts/${encodeURIComponent(twilio.accountSid)}/${resource}.json`;
  let res;
  try {
    res = await request(url, {
      method: 'POST',
      body: new URLSearchParams(fields).toString(),
      headers: {
        authorization: `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        'user-agent': 'Parley/1.0',
      },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    const e = err as Error & { code?: string };
    throw new Error(e.name === 'TimeoutError' || e.name === 'AbortError' ? `Twilio did not answer within ${TIMEOUT_MS} ms` : `Twilio unreachable: ${e.code ?? e.name}`);
  }
  const text = await res.body.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const e = (body ?? {}) as TwilioError;
    const detail = [e.code, e.message].filter((x) => x !== undefined && x !== '').join(' ');
    throw new Error(`Twilio answered HTTP ${res.statusCode}${detail ? `: ${detail}` : ''}`.slice(0, 300));
  }
  const sid = (body as { sid?: unknown } | undefined)?.sid;
  if (typeof sid !== 'string' || sid === '') throw new Error(`Twilio answered HTTP ${res.statusCode} without a sid`);
  return { sid };
}

function requireFrom(m: OutboundMessage): string {
  if (!m.from) throw new Error(`no sending number: set sendingNumber with PATCH /v1/settings before sending ${m.channel}`);
  return m.from;
}

/** SMS and voice through Twilio; `publicUrl` is where Twilio reaches our callbacks. */
export function twilioAdapters(config: Config & { twilio: TwilioConfig }): { sms: ChannelAdapter; voice: ChannelAdapter } {
  const { twilio, publicUrl } = config;
  const sms: ChannelAdapter = {
    name: 'twilio-sms',
    send: async (m): Promise<SendReceipt> => {
      const { sid } = await post(twilio, 'Messages', { To: m.to, From: requireFrom(m), Body: m.text, StatusCallback: publicUrl + twilioCallbackPaths.status });
      return { providerMessageId: sid };
    },
  };
  const voice: ChannelAdapter = {
    name: 'twilio-voice',
    send: async (m): Promise<SendReceipt> => {
      const from = requireFrom(m);
      const twiml = sayAndGather(m.text, publicUrl + twilioCallbackPaths.gather);
      if (twiml.length > MAX_TWIML_CHARS) throw new Error(`voice message too long: the call's TwiML may hold ${MAX_TWIML_CHARS} characters`);
      const { sid } = await post(twilio, 'Calls', { To: m.to, From: from, Twiml: twiml, StatusCallback: publicUrl + twilioCallbackPaths.status });
      return { providerMessageId: sid };
    },
  };
  return { sms, voice };
}
