import { statusAfterStep } from '../support/messages.js';
import { createHmac } from 'node:crypto';
import { expect } from 'vitest';
import type { FakeTwilio } from '../support/fake-twilio.js';
import type { Client, TestServer } from '../support/harness.js';
import { until } from '../support/assert.js';

export const SID = 'ACpool';
export const TOKEN = 'pool-secret';
export const PUBLIC = 'https://parley.example.com';
export const ALWAYS_OPEN = { contactHours: { start: '00:00', end: '00:00' } };

export const twilioEnv = (fake: FakeTwilio): Record<string, string> => ({
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_API_BASE_URL: fake.url,
  PARLEY_PUBLIC_URL: PUBLIC,
  PARLEY_WORKER_POLL_MS: '20',
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
});

let counter = 0;
/** A distinct number of an area code per call (unique within a process). */
export const numberIn = (area: string): string =>
  `+1${area}557${String(1000 + ((process.pid + counter++) % 9000)).padStart(4, '0')}`;

export async function addNumber(
  client: Client,
  body: Record<string, unknown>,
): Promise<{ id: string; number: string }> {
  const res = await client.post('/sendingNumbers', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function send(client: Client, leadId: string, text: string): Promise<string> {
  const res = await client.post(`/leads/${leadId}/sendMessage`, { message: text, channel: 'sms' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

export interface MessageView {
  id: string;
  status: string;
  statusCode: string | null;
  statusReason: string | null;
  scheduledTime: string | null;
  segments?: number;
  content: { text: string };
}

export async function messageOf(client: Client, leadId: string, id: string): Promise<MessageView | undefined> {
  return ((await client.get(`/leads/${leadId}/messages`)).body.messages as MessageView[]).find((m) => m.id === id);
}

/** Polls `fn` until `ok` holds and returns that value; fails with the last value after `ms`. */
export { until };

/**
 * The message after the worker's step (`ts.runDue()`, which also waits for a paced send's slot a moment away):
 * sent, failed or blocked by then, or this fails with where it stayed.
 */
export async function settledAfterStep(
  ts: Pick<TestServer, 'runDue'>,
  client: Client,
  leadId: string,
  id: string,
): Promise<MessageView> {
  return statusAfterStep(ts, client, leadId, id, (s) => ['sent', 'failed', 'blocked'].includes(s));
}

/** Polls until the message is sent, failed or blocked: for tests whose point is the real-time pace of the worker's own loop. */
export async function settled(client: Client, leadId: string, id: string, ms = 10_000): Promise<MessageView> {
  return (await until(
    () => messageOf(client, leadId, id),
    (m) => !!m && ['sent', 'failed', 'blocked'].includes(m.status),
    ms,
  ))!;
}

/** Twilio's documented request signature: URL + sorted params, HMAC-SHA1 with the auth token. */
export async function twilioWebhook(ts: TestServer, path: string, params: Record<string, string>) {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, name) => acc + name + params[name], PUBLIC + path);
  const signature = createHmac('sha1', TOKEN).update(Buffer.from(data, 'utf-8')).digest('base64');
  return ts.raw(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8', 'x-twilio-signature': signature },
    body: new URLSearchParams(params).toString(),
  });
}

/** The largest number of sends within any window of `windowMs` (sorted arrival times). */
export function busiestWindow(times: number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < t.length; i += 1) {
    while (t[i]! - t[j]! >= windowMs) j += 1;
    best = Math.max(best, i - j + 1);
  }
  return best;
}
