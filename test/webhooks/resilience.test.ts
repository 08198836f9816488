import { afterAll, expect, it } from 'vitest';
import { createLead, describeEachDialect, type TestServer } from '../support/harness.js';
import { Receiver, hang, hugeBody, respond, respondAfter, trickle, type Behaviour } from '../support/receiver.js';
import {
  FAST_WEBHOOKS,
  deliveriesOf,
  eventually,
  freshOrg,
  optOutLeads,
  quietAfterStep,
  registerEndpoint,
} from '../support/webhooks.js';

/** Every id acknowledged exactly once, and exactly the ids expected. */
function expectEachOnce(r: Receiver, expected: number): void {
  const counts = r.ackCounts();
  expect(counts.size).toBe(expected);
  expect([...counts.entries()].filter(([, n]) => n !== 1)).toEqual([]);
}

/** Receivers made for one suite, all stopped after it (before its server, so no request is left hanging). */
function receivers() {
  const made: Receiver[] = [];
  afterAll(async () => {
    await Promise.all(made.map((r) => r.stop()));
  });
  return async (behaviour?: Behaviour) => {
    const r = await new Receiver().start();
    if (behaviour) r.behaviour = behaviour;
    made.push(r);
    return r;
  };
}

/**
 * Receivers that fail, vanish, or hang for longer than the test: every event
 * still arrives (acknowledged exactly once), one hanging endpoint does not
 * hold up the others, and a slow answer is not raced by a second request.
 * The timeout is long (20 s) so a hang really is one; the lease short (1 s)
 * and sixteen worker slots, so the tests would see a lease or a slot misused.
 */
describeEachDialect(
  'webhook delivery to failing receivers',
  (ctx) => {
    const receiver = receivers();

    it('a receiver that answers 500 three times per event, then 200, gets every event, each acknowledged once', async () => {
      const client = await freshOrg(ctx());
      const tries = new Map<string, number>();
      const r = await receiver((req, res) => {
        const id = String(req.headers['webhook-id']);
        const n = (tries.get(id) ?? 0) + 1;
        tries.set(id, n);
        res.writeHead(n <= 3 ? 500 : 200).end('{}');
      });
      const ep = await registerEndpoint(client, r);
      await optOutLeads(client, 10);
      await r.until(() => r.ackCounts().size === 20, 15_000);
      await quietAfterStep(ctx(), r, 200);
      expectEachOnce(r, 20);
      expect([...tries.values()]).toEqual(Array(20).fill(4));
      expect(r.received.every((d) => d.standardSignatureValid && d.legacySignatureValid)).toBe(true);
      await eventually('all recorded as succeeded on the fourth attempt', async () => {
        const list = await deliveriesOf(client, ep.id);
        return (
          list.length === 20 &&
          list.every((d) => d.status === 'succeeded' && d.attempts === 4 && d.lastStatusCode === 200)
        );
      });
    });

    it('a receiver that is down (connection refused) gets every event once it is back on the same port', async () => {
      const client = await freshOrg(ctx());
      const r = await receiver();
      const ep = await registerEndpoint(client, r);
      const port = r.port;
      await r.stop();
      await optOutLeads(client, 5);
      await eventually('a refused attempt is recorded', async () =>
        (await deliveriesOf(client, ep.id)).some((d) => d.attempts > 0 && d.lastError),
      );
      expect(r.received).toHaveLength(0);
      await r.start(port);
      expect(r.port).toBe(port);
      await r.until(() => r.ackCounts().size === 10, 10_000);
      await quietAfterStep(ctx(), r, 200);
      expectEachOnce(r, 10);
    });

    it('an endpoint that hangs does not block deliveries to another, even with more hanging requests than worker slots', async () => {
      const client = await freshOrg(ctx());
      const hanging = await receiver(hang);
      const healthy = await receiver();
      await registerEndpoint(client, hanging);
      await registerEndpoint(client, healthy);
      await optOutLeads(client, 10); // 20 deliveries to each endpoint, 16 worker slots
      await healthy.until(() => healthy.acknowledged.length === 20, 5_000);
      expectEachOnce(healthy, 20);
      // Meanwhile the stuck endpoint was being tried, and none of those requests has ended (or timed out) yet.
      expect(hanging.received.length).toBeGreaterThan(0);
      expect(hanging.acknowledged).toHaveLength(0);
      await hanging.stop(); // its requests fail now, instead of holding slots for the next test
    });

    it('a receiver slower than the lease is not sent the same event again while the first request is out', async () => {
      const client = await freshOrg(ctx());
      const slow = await receiver(respondAfter(1600));
      await registerEndpoint(client, slow);
      const leadId = await createLead(client);
      expect((await client.post(`/leads/${leadId}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
      await slow.until(() => slow.acknowledged.length === 1, 5_000);
      await quietAfterStep(ctx(), slow, 300);
      expect(slow.overlapping).toEqual([]);
      expect(slow.received).toHaveLength(1);
    });
  },
  { ...FAST_WEBHOOKS, PARLEY_WEBHOOK_TIMEOUT_MS: '20000', PARLEY_LEASE_MS: '1000', PARLEY_WORKER_CONCURRENCY: '16' },
);

/**
 * Receivers the sender has to give up on: a one-second timeout, so a hang,
 * an endless body or a trickle is cut off quickly.
 */
describeEachDialect(
  'webhook delivery to receivers that never finish',
  (ctx) => {
    const receiver = receivers();

    it('a receiver that hangs past the timeout and then recovers gets every event, each acknowledged once', async () => {
      const client = await freshOrg(ctx());
      const r = await receiver(hang);
      await registerEndpoint(client, r);
      await optOutLeads(client, 5);
      await r.until(() => r.received.length >= 20, 10_000); // every event tried (and timed out) at least once
      expect(r.acknowledged).toHaveLength(0);
      r.behaviour = respond(200);
      await r.until(() => r.ackCounts().size === 10, 10_000);
      await quietAfterStep(ctx(), r, 200);
      expectEachOnce(r, 10);
    });

    it('receivers that stream a huge body or trickle bytes do not hold up another, and memory stays bounded', async () => {
      const ts: TestServer = ctx();
      const client = await freshOrg(ts);
      const huge = await receiver(hugeBody(50));
      const slow = await receiver(trickle(20));
      const good = await receiver();
      const hugeEp = await registerEndpoint(client, huge);
      const slowEp = await registerEndpoint(client, slow);
      await registerEndpoint(client, good);
      const rssBefore = process.memoryUsage().rss;
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
      try {
        await optOutLeads(client, 5);
        await good.until(() => good.acknowledged.length === 10, 5_000);
        expectEachOnce(good, 10);
        // The status line is the answer: a 2xx is a success whatever follows it, and the rest is not waited for.
        for (const ep of [hugeEp, slowEp]) {
          await eventually('deliveries to a misbehaving receiver recorded as succeeded', async () => {
            const list = await deliveriesOf(client, ep.id);
            return list.length === 10 && list.every((d) => d.status === 'succeeded' && d.lastStatusCode === 200);
          });
        }
        expect(new Set(huge.received.map((d) => d.id)).size).toBe(10);
        expect(new Set(slow.received.map((d) => d.id)).size).toBe(10);
      } finally {
        clearInterval(sampler);
      }
      // This process is server, worker and receivers at once: 500 MB were offered to it.
      expect(rssPeak - rssBefore).toBeLessThan(200 * 1024 * 1024);
    });
  },
  { ...FAST_WEBHOOKS, PARLEY_WEBHOOK_TIMEOUT_MS: '1000' },
);
