import { until } from './assert.js';
import type { Client, TestServer } from './harness.js';

async function findMessage(client: Client, leadId: string, messageId: string) {
  return (await client.get(`/leads/${leadId}/messages`)).body.messages.find((m: { id: string }) => m.id === messageId);
}

/**
 * Runs the worker's step (`ts.runDue()`: everything due now, and paced sends a moment away), then reads the
 * message, which must have reached a wanted status by then; fails with where it stayed. The way to wait for a
 * send in a suite whose server runs in this process. With `retries`, a send the provider refused for now is
 * retried: the clock moves a second on (past the 50 ms retry schedule of the tests' env) and the worker steps
 * again, at most that many times.
 */
export async function statusAfterStep(
  ts: Pick<TestServer, 'runDue'> & Partial<Pick<TestServer, 'clock'>>,
  client: Client,
  leadId: string,
  messageId: string,
  wanted: (s: string) => boolean = () => true,
  { retries = 0 } = {},
) {
  for (let step = 0; ; step++) {
    await ts.runDue();
    const msg = await findMessage(client, leadId, messageId);
    if (msg && wanted(msg.status)) return msg;
    if (step >= retries || !ts.clock)
      throw new Error(`after the step, message ${messageId} is ${msg?.status} (${msg?.statusReason})`);
    ts.clock.advance(1_000);
  }
}

/**
 * Polls a lead's history until the message reaches a wanted status; fails with where it stayed. Only for a
 * server in another process (no step to run): in process, use statusAfterStep.
 */
export async function waitForStatus(
  client: Client,
  leadId: string,
  messageId: string,
  wanted: (s: string) => boolean,
  ms = 10_000,
) {
  const msg = await until(
    () => findMessage(client, leadId, messageId),
    (m) => m !== undefined && wanted(m.status),
    ms,
    { what: `message ${messageId}'s status`, every: 30 },
  );
  // until answers only a value its check accepted, which is never undefined.
  return msg as NonNullable<typeof msg>;
}
