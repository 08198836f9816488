import { SCOPES } from '../../src/platform/auth/scopes.js';
import { sleep, until } from './assert.js';
import { createLead, type Client, type TestServer } from './harness.js';
import { afterAll } from 'vitest';
import { Receiver, type Behaviour } from './receiver.js';

/**
 * Retries quick enough for a test: eight attempts (the production schedule's
 * length), all spent in under two seconds.
 */
export const FAST_RETRIES = '0,100ms,200ms,300ms,300ms,300ms,300ms,300ms';
export const FAST_SCHEDULE_LENGTH = FAST_RETRIES.split(',').length;

export const FAST_WEBHOOKS = {
  PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
  PARLEY_WORKER_POLL_MS: '20',
  PARLEY_WEBHOOK_RETRY_SCHEDULE: FAST_RETRIES,
};

let orgCounter = 0;
/**
 * A client of a brand-new organization: every endpoint of an organization
 * receives all of its events, so each test gets its own and tests sharing a
 * server cannot see each other's deliveries.
 */
export async function freshOrg(ts: TestServer, label = 'org'): Promise<Client> {
  orgCounter += 1;
  return ts.clientWithScopes([...SCOPES], `${label}-${process.pid}-${orgCounter}`);
}

export interface Endpoint {
  id: string;
  secret: string;
}

/** Registers `receiver` through the API and hands it the signing secret from the answer. */
export async function registerEndpoint(
  client: Client,
  receiver: Receiver,
  events?: string[],
  url = receiver.url,
): Promise<Endpoint> {
  const res = await client.post('/webhooks', events ? { url, events } : { url });
  if (res.status !== 201) throw new Error(`register webhook failed: ${res.status} ${JSON.stringify(res.body)}`);
  receiver.secret = res.body.secret as string;
  return { id: res.body.id as string, secret: res.body.secret as string };
}

/** A lead with a phone (sms + voice), unsubscribed from everything: two optOut events. */
export async function optOutLead(client: Client, fields: Record<string, unknown> = {}): Promise<string> {
  const id = await createLead(client, fields);
  const res = await client.post(`/leads/${id}/unsubscribe`, {});
  if (res.status !== 200) throw new Error(`unsubscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
  return id;
}

/** `count` leads opted out `parallel` at a time; answers their ids. `fields(i)` adds to lead i (an email: a third event). */
export async function optOutLeads(
  client: Client,
  count: number,
  parallel = 10,
  fields: (i: number) => Record<string, unknown> = () => ({}),
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, (_, j) => optOutLead(client, fields(i + j)));
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
}

export async function deliveriesOf(client: Client, endpointId: string): Promise<DeliveryView[]> {
  const res = await client.get(`/webhooks/${endpointId}/deliveries?limit=100`);
  if (res.status !== 200) throw new Error(`list deliveries failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.deliveries as DeliveryView[];
}

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** Polls `probe` until it answers something truthy, and answers that; fails naming `what` after `ms` (`until`). */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T> | T,
  ms = 10_000,
  every = 25,
): Promise<Truthy<T>> {
  return (await until(probe, (v) => Boolean(v), ms, { what, every })) as Truthy<T>;
}

/**
 * "And no further delivery", for a server in this process: runs the worker's step (every delivery due now is
 * attempted and recorded), lets `ms` pass for retries the schedule sets a little later, steps again, and fails
 * if the receiver got anything more. The check rests on the steps having run, not on the wait being long enough.
 */
export async function quietAfterStep(ts: Pick<TestServer, 'runDue'>, receiver: Receiver, ms = 0): Promise<void> {
  const before = receiver.received.length;
  await ts.runDue();
  if (ms > 0) {
    await sleep(ms);
    await ts.runDue();
  }
  if (receiver.received.length !== before)
    throw new Error(`receiver got ${receiver.received.length - before} unexpected deliveries`);
}

/**
 * Lets the worker run for a while, then checks nothing more arrived: only for workers in child processes
 * (multi-worker, scale-out), which have no step to drive; in-process suites use quietAfterStep.
 */
export async function quietFor(receiver: Receiver, ms: number): Promise<void> {
  const before = receiver.received.length;
  await sleep(ms);
  if (receiver.received.length !== before)
    throw new Error(`receiver got ${receiver.received.length - before} unexpected deliveries`);
}

/**
 * Receivers on 127.0.0.1 made on demand by a suite's tests, all stopped when
 * the suite ends. Call it in the describe body.
 */
export function receiverPool(): (behaviour?: Behaviour) => Promise<Receiver> {
  const receivers: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.stop()));
  });
  return async (behaviour?: Behaviour) => {
    const r = await new Receiver().start();
    if (behaviour) r.behaviour = behaviour;
    receivers.push(r);
    return r;
  };
}
