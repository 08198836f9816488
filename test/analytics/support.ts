import { expect } from 'vitest';
import { startFakeTwilio, type FakeTwilio } from '../support/fake-twilio.js';
import type { Client, TestServer } from '../support/harness.js';
import { signedWebhook } from '../support/twilio-webhooks.js';
import { statusAfterStep } from '../support/messages.js';

export const SID = 'ACanalytics';
export const TOKEN = 'analytics-secret';
export const PUBLIC = 'https://parley.example.com';
export const ALWAYS_OPEN = { contactHours: { start: '00:00', end: '00:00' } };

export const envFor = (fake: FakeTwilio) => ({
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_API_BASE_URL: fake.url,
  PARLEY_PUBLIC_URL: PUBLIC,
  PARLEY_WORKER_POLL_MS: '20',
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
});

export { startFakeTwilio };

let counter = 0;
/** A distinct sending number per organization (area code 628, apart from the leads' 415). */
export const sendingNumber = () => `+1628557${String(1000 + ((process.pid + counter++) % 9000)).padStart(4, '0')}`;

export const ALL = [
  'leads:read',
  'leads:write',
  'messages:write',
  'settings:read',
  'settings:write',
  'profiles:read',
  'profiles:write',
  'analytics:read',
  'inbound:write',
] as const;

/** An organization of its own (exact figures need a clean slate), open around the clock, with its own sending number. */
export async function organization(ts: TestServer, name: string) {
  const client = await ts.clientWithScopes([...ALL], `${name}-${Math.random().toString(36).slice(2, 8)}`);
  const number = sendingNumber();
  const res = await client.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: number });
  expect(res.status).toBe(200);
  return { client, number };
}

export async function messagesOf(client: Client, leadId: string) {
  const res = await client.get(`/leads/${leadId}/messages`);
  expect(res.status).toBe(200);
  return res.body.messages as {
    id: string;
    content: { text: string };
    direction: string;
    status: string;
    statusReason: string | null;
  }[];
}

/** Sends, runs the worker's step, and answers the message, which must be sent or failed by then. */
export async function sendAndSettle(ts: Pick<TestServer, 'runDue'>, client: Client, leadId: string, message: string) {
  const res = await client.post(`/leads/${leadId}/sendMessage`, { message, sendWhenOff: true });
  expect(res.status).toBe(200);
  return statusAfterStep(ts, client, leadId, res.body.id, (s) => s === 'sent' || s === 'failed');
}

export async function providerIdOf(ts: TestServer, messageId: string): Promise<string> {
  const row = await ts.server.store.db
    .selectFrom('messages')
    .select('provider_message_id')
    .where('id', '=', messageId)
    .executeTakeFirstOrThrow();
  return row.provider_message_id!;
}

/** A Twilio status callback, signed. */
export async function statusCallback(
  ts: TestServer,
  from: string,
  to: string,
  sid: string,
  status: string,
  errorCode?: string,
) {
  const params: Record<string, string> = {
    AccountSid: SID,
    MessageSid: sid,
    SmsSid: sid,
    MessageStatus: status,
    SmsStatus: status,
    From: from,
    To: to,
    ApiVersion: '2010-04-01',
  };
  if (errorCode) params.ErrorCode = errorCode;
  const res = await signedWebhook(ts, PUBLIC, TOKEN, '/v1/providers/twilio/status', params);
  expect(res.status).toBe(200);
}
