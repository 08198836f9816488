import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { clientFor, uniquePhone, type Client, type freshDatabase } from '../support/harness.js';
import {
  preparedPostgres,
  freePort,
  killStarted,
  spawnParley,
  waitForOutput,
  waitReady,
  type ParleyProcess,
} from '../support/processes.js';
import { Receiver } from '../support/receiver.js';
import { FAST_RETRIES, quietFor, registerEndpoint } from '../support/webhooks.js';

const pgAvailable = inject('pgAvailable');
if (!pgAvailable)
  console.warn('\n*** PostgreSQL not reachable: the scale-out suite is SKIPPED (it needs PostgreSQL). ***\n');

/**
 * The deployment the README describes for outgrowing one machine: two
 * stateless API processes (`serve --no-worker`) and two `worker` processes on
 * one PostgreSQL. Requests spread across the API processes see the same data,
 * concurrent opt-outs through both are exactly-once per channel, and every
 * event is delivered once.
 */
describe.skipIf(!pgAvailable)('two API processes and two workers on one PostgreSQL [postgres]', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  const receiver = new Receiver();
  const apis: { proc: ParleyProcess; url: string; client: Client }[] = [];
  const workers: ParleyProcess[] = [];

  beforeAll(async () => {
    let key: string;
    ({ database, key } = await preparedPostgres());
    await receiver.start();
    const env = {
      DATABASE_URL: database.url,
      PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
      PARLEY_RATE_LIMIT: '0',
      PARLEY_WEBHOOK_RETRY_SCHEDULE: FAST_RETRIES,
      PARLEY_DB_POOL_SIZE: '4',
    };
    for (let i = 0; i < 2; i += 1) {
      const port = await freePort();
      const proc = spawnParley(['serve', '--no-worker'], { ...env, PORT: String(port), HOST: '127.0.0.1' });
      const url = `http://127.0.0.1:${port}`;
      apis.push({ proc, url, client: clientFor(url, key) });
    }
    for (let i = 0; i < 2; i += 1) workers.push(spawnParley(['worker'], { ...env, LOG_LEVEL: 'info' }));
    await Promise.all(apis.map((a) => waitReady(a.proc, a.url)));
    await Promise.all(workers.map((w) => waitForOutput(w, /parley worker running/)));
  }, 240_000);

  afterAll(async () => {
    await killStarted();
    await receiver.stop();
    await database?.drop();
  });

  it('serves one dataset: what one process writes, the other reads at once', async () => {
    const [a, b] = [apis[0]!.client, apis[1]!.client];
    const phone = uniquePhone();
    const created = await a.post('/leads/create', { firstName: 'Scale', phone });
    expect(created.status).toBe(200);
    expect((await b.get(`/leads/${created.body.id}`)).body.phone).toBe(phone);
    expect((await b.patch(`/leads/${created.body.id}`, { additionalInfo: { stage: 'b' } })).status).toBe(200);
    expect((await a.get(`/leads/${created.body.id}`)).body.additionalInfo).toEqual({ stage: 'b' });
    expect((await b.post('/leads/create', { firstName: 'Dup', phone })).status).toBe(409);
  });

  it('concurrent opt-outs through both API processes give one event per channel, each delivered once', async () => {
    const [a, b] = [apis[0]!.client, apis[1]!.client];
    await registerEndpoint(a, receiver, ['optOut']);
    const leads: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const r = await (i % 2 ? a : b).post('/leads/create', {
        firstName: `L${i}`,
        phone: uniquePhone(),
        email: `scale${i}@example.com`,
      });
      leads.push(r.body.id);
    }
    // 10 requests per lead, alternating processes, all at once.
    const results = await Promise.all(
      leads.flatMap((id) => Array.from({ length: 10 }, (_, k) => (k % 2 ? a : b).post(`/leads/${id}/unsubscribe`, {}))),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const expected = leads.length * 3;
    // Real time: the server here is a child process, with no clock to move and no step to run; a bounded wait for a positive event.
    await receiver.until(() => receiver.ackCounts().size === expected, 30_000);
    await quietFor(receiver, 500);
    const perLeadChannel = new Map<string, number>();
    for (const d of receiver.received) {
      const k = `${d.json.data.leadId}/${d.json.data.channel}`;
      perLeadChannel.set(k, (perLeadChannel.get(k) ?? 0) + 1);
    }
    expect(perLeadChannel.size).toBe(expected);
    expect([...perLeadChannel.values()].every((n) => n === 1)).toBe(true);
    expect(receiver.overlapping).toEqual([]);
  }, 60_000);
});
