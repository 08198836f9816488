import { expect, it } from 'vitest';
import { outboxFor } from '../support/events.js';
import { createLead, describeEachDialect } from '../support/harness.js';
import {
  FAST_WEBHOOKS,
  deliveriesOf,
  receiverPool,
  eventually,
  freshOrg,
  optOutLead,
  quietAfterStep,
  registerEndpoint,
} from '../support/webhooks.js';

/**
 * docs/contract.md, Webhooks: "Events of a disabled endpoint are kept and delivered
 * when it is enabled again", and "A receiver's Retry-After is honoured up to
 * the next step of the schedule, never beyond". Real server and worker, real
 * receivers on 127.0.0.1, both dialects.
 */
describeEachDialect(
  'webhook deliveries held for a disabled endpoint, and Retry-After bounded',
  (ctx) => {
    const receiver = receiverPool();

    it.concurrent('events that happen while the endpoint is disabled are kept, sent nothing, and delivered once it is enabled', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const r = await receiver();
      const ep = await registerEndpoint(client, r);
      expect((await client.patch(`/webhooks/${ep.id}`, { enabled: false })).status).toBe(200);
      const leadId = await optOutLead(client);
      await ctx().runDue();
      const held = await deliveriesOf(client, ep.id);
      expect(held).toHaveLength(2);
      for (const d of held)
        expect(d).toMatchObject({ status: 'pending', attempts: 0, nextAttemptAt: null, lastError: null });
      await quietAfterStep(ctx(), r, 400);
      expect(r.received).toHaveLength(0);

      expect((await client.patch(`/webhooks/${ep.id}`, { enabled: true })).body.enabled).toBe(true);
      await ctx().runDue();
      expect(r.acknowledged).toHaveLength(2);
      const events = await outboxFor(ts, leadId, 'optOut');
      expect(new Set(r.acknowledged.map((d) => d.id))).toEqual(new Set(events.map((e) => e.id)));
      const done = await deliveriesOf(client, ep.id);
      expect(done.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
      expect(done.map((d) => d.attempts)).toEqual([1, 1]);
    });

    it.concurrent('a delivery being retried when its endpoint is disabled is held with its attempts, and finishes after enabling', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      let up = false;
      const r = await receiver((_req, res) => res.writeHead(up ? 200 : 500).end('{}'));
      const ep = await registerEndpoint(client, r);
      const leadId = await createLead(client);
      expect((await client.post(`/leads/${leadId}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
      // Failing attempts on the fast schedule's real-time spacing, run by the worker's loop: a bounded wait.
      await r.until(() => r.received.length >= 2);
      expect((await client.patch(`/webhooks/${ep.id}`, { enabled: false })).status).toBe(200);
      const [held] = await eventually('the delivery is held', async () => {
        const list = await deliveriesOf(client, ep.id);
        return list[0]?.status === 'pending' && list[0].nextAttemptAt === null && list;
      });
      // Held, not failed: the schedule (eight attempts in under two seconds) would have run out meanwhile.
      await quietAfterStep(ctx(), r, 2500);
      const tried = r.received.length;
      expect((await deliveriesOf(client, ep.id))[0]).toMatchObject({
        status: 'pending',
        nextAttemptAt: null,
        attempts: held!.attempts,
      });

      up = true;
      expect((await client.patch(`/webhooks/${ep.id}`, { enabled: true })).status).toBe(200);
      await ctx().runDue();
      expect(r.acknowledged).toHaveLength(1);
      const [done] = await deliveriesOf(client, ep.id);
      expect(done?.status).toBe('succeeded');
      expect(done!.attempts).toBe(tried + 1);
      expect(new Set(r.received.map((d) => d.id)).size).toBe(1);
    });

    it.concurrent('a Retry-After of a year (seconds or an HTTP date) delays the retry only to the next step of the schedule', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const seen = new Map<string, number>();
      const nextYear = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
      const r = await receiver((req, res) => {
        const id = String(req.headers['webhook-id']);
        const n = (seen.get(id) ?? 0) + 1;
        seen.set(id, n);
        if (n === 1) res.writeHead(429, { 'retry-after': String(365 * 24 * 3600) }).end();
        else if (n === 2) res.writeHead(503, { 'retry-after': nextYear }).end();
        else res.writeHead(200).end('{}');
      });
      const ep = await registerEndpoint(client, r);
      const leadId = await createLead(client);
      expect((await client.post(`/leads/${leadId}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
      // FAST schedule: 0, 100 ms, 200 ms, 300 ms, ...: the two retries are capped at 200 ms and 300 ms.
      // The retries' real-time spacing is what is checked: the loop runs them, a bounded wait for the success.
      await r.until(() => r.acknowledged.length === 1, 5000);
      const [event] = await outboxFor(ts, leadId, 'optOut');
      const attempts = r.attemptsFor(event!.id);
      expect(attempts).toHaveLength(3);
      expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(90);
      expect(attempts[1]!.at - attempts[0]!.at).toBeLessThan(1500);
      expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(180);
      expect(attempts[2]!.at - attempts[1]!.at).toBeLessThan(1500);
      const [delivery] = await eventually('the success is recorded', async () => {
        const list = await deliveriesOf(client, ep.id);
        return list[0]?.status === 'succeeded' && list;
      });
      expect(delivery).toMatchObject({ attempts: 3, lastStatusCode: 200 });
    });
  },
  FAST_WEBHOOKS,
);
