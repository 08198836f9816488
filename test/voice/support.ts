import { expect } from 'vitest';
import type { FakeTwilio } from '../support/fake-twilio.js';
import type { Client, TestServer } from '../support/harness.js';
import { signedWebhook } from '../support/twilio-webhooks.js';

export const SID = 'ACtest';
export const TOKEN = 'secret';
export const PUBLIC = 'https://parley.example.com';
export const ALWAYS_OPEN = { contactHours: { start: '00:00', end: '00:00' } };

export const twilioEnv = (fake: FakeTwilio) => ({
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_API_BASE_URL: fake.url,
  PARLEY_PUBLIC_URL: PUBLIC,
  PARLEY_WORKER_POLL_MS: '20',
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
});

let numberCounter = 0;
/** A distinct sending number per organization. */
export const sendingNumber = () => `+1628777${String(1000 + (numberCounter++ % 9000)).padStart(4, '0')}`;

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** An attribute of the first element `tag` in a TwiML document. */
export function twimlAttr(twiml: string, tag: string, attr: string): string | undefined {
  const el = new RegExp(`<${tag}\\b([^>]*)>`).exec(twiml)?.[1];
  const v = el ? new RegExp(`\\b${attr}="([^"]*)"`).exec(el)?.[1] : undefined;
  return v === undefined ? undefined : unescape(v);
}

/** A callback URL's path and query, as the test server is reached (the public host is Twilio's view of it). */
export const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

/** Posts a Twilio callback to a URL Parley gave Twilio (with its query), signed. */
export const callback = (ts: TestServer, url: string, params: Record<string, string>) =>
  signedWebhook(ts, PUBLIC, TOKEN, pathOf(url), params);

export interface PlacedCall {
  id: string;
  sid: string;
  twiml: string;
  relayUrl: string;
  actionUrl: string;
  params: Record<string, string>;
}

export async function placeCall(
  client: Client,
  fake: FakeTwilio,
  leadId: string,
  body: Record<string, unknown> = {},
): Promise<PlacedCall> {
  const res = await client.post(`/leads/${leadId}/call`, body);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: 'dialing' });
  const call = fake.accepted('Calls', (p) => p.Twiml?.includes(res.body.id) ?? false);
  expect(call).toHaveLength(1);
  const twiml = call[0]!.params.Twiml!;
  return {
    id: res.body.id,
    sid: call[0]!.sid!,
    twiml,
    relayUrl: twimlAttr(twiml, 'ConversationRelay', 'url')!,
    actionUrl: twimlAttr(twiml, 'Connect', 'action')!,
    params: call[0]!.params,
  };
}

export async function voiceMessages(client: Client, leadId: string) {
  const res = await client.get(`/leads/${leadId}/messages`);
  expect(res.status).toBe(200);
  return (
    res.body.messages as { channel: string; direction: string; content: { text: string }; isAiGenerated: boolean }[]
  ).filter((m) => m.channel === 'voice');
}
