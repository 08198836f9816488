import { expect } from 'vitest';
import type { Client } from '../support/harness.js';
import { sleep, until } from '../support/assert.js';

export const ALWAYS_OPEN = { contactHours: { start: '00:00', end: '00:00' } };

/** Worker polling fast and retries short, so a whole conversation runs in seconds. */
export const FAST_AGENT_ENV = { PARLEY_WORKER_POLL_MS: '20', PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms' };

/** The server's settings for the OpenAI-compatible agent talking to a fake model server (test/support/fake-openai.ts). */
export function openAiAgentEnv(fake: { url: string; key: string }) {
  return {
    ...FAST_AGENT_ENV,
    PARLEY_AI_PROVIDER: 'openai',
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: fake.key,
    PARLEY_AI_MODEL: 'fake-model-1',
    // Long enough that a loaded CI machine never times out a fake that answers at once.
    PARLEY_AI_TIMEOUT_MS: '1500',
  };
}

export interface MessageView {
  id: string;
  content: { text: string };
  owner: 'user' | 'lead';
  isAiGenerated: boolean;
  channel: string;
  direction: 'inbound' | 'outbound';
  status: string;
  statusReason: string | null;
  scheduledTime: string | null;
  createdAt: string;
}

export interface TurnView {
  id: string;
  triggerMessageId: string;
  status: 'pending' | 'done' | 'skipped' | 'failed';
  actions: string[];
  error: string | null;
}

/** Polls `fn` until `ok` holds and returns that value; fails (with the last value) when it does not within `ms`. */
export { sleep, until };

export async function messages(client: Client, leadId: string): Promise<MessageView[]> {
  const res = await client.get(`/leads/${leadId}/messages`);
  expect(res.status).toBe(200);
  return res.body.messages as MessageView[];
}

export const aiMessages = (ms: MessageView[]) => ms.filter((m) => m.direction === 'outbound' && m.isAiGenerated);

export async function turns(client: Client, leadId: string): Promise<TurnView[]> {
  const res = await client.get(`/leads/${leadId}/agentTurns`);
  expect(res.status).toBe(200);
  return res.body.turns as TurnView[];
}

export async function lead(client: Client, leadId: string) {
  const res = await client.get(`/leads/${leadId}`);
  expect(res.status).toBe(200);
  return res.body;
}

export async function inbound(client: Client, from: string, text: string, channel = 'sms') {
  const res = await client.post('/inbound', { channel, from, text });
  expect(res.status).toBe(200);
  return res.body as { leadId: string | null; messageId: string; action: string };
}

/**
 * A step that walks a job through FAST_AGENT_ENV's retries (50 ms, 50 ms): the worker's step, then the
 * server's clock a second on so the retry is due, three times. For turns that fail and are tried again.
 */
export function stepThroughRetries(ts: { runDue(): Promise<unknown>; clock: { advance(ms: number): void } }) {
  return async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      await ts.runDue();
      ts.clock.advance(1_000);
    }
    await ts.runDue();
  };
}

export const finished = (all: TurnView[]) => all.every((t) => t.status !== 'pending');

/**
 * Sends a lead message and answers the agent's turn for it, finished. With `step` (a test server's `runDue`),
 * runs the worker's step and reads the turn, which must have ended; without, polls until it has (for a
 * server whose worker cannot be stepped).
 */
export async function say(
  client: Client,
  leadId: string,
  from: string,
  text: string,
  step?: () => Promise<unknown>,
): Promise<{ messageId: string; turn: TurnView | undefined }> {
  const r = await inbound(client, from, text);
  expect(r.action).toBe('conversation');
  const ended = (t: TurnView) => t.triggerMessageId === r.messageId && t.status !== 'pending';
  let all: TurnView[];
  if (step) {
    await step();
    all = await turns(client, leadId);
    expect(all.filter(ended), `the turn for ${r.messageId} ended in the step`).toHaveLength(1);
  } else
    all = await until(
      () => turns(client, leadId),
      (ts) => ts.some(ended),
    );
  return { messageId: r.messageId, turn: all.find((t) => t.triggerMessageId === r.messageId) };
}
