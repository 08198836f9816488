import { expect, it } from 'vitest';
import { outboxFor } from '../support/events.js';
import { createLead, describeEachDialect } from '../support/harness.js';
import { respond, verifyLegacy, verifyStandard } from '../support/receiver.js';
import {
  FAST_SCHEDULE_LENGTH,
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
 * What a receiver sees, end to end: the real server and worker, endpoints
 * registered through the API, deliveries over real HTTP to receivers on
 * 127.0.0.1 that check both signatures the way a client would. Each test has
 * its own organization and receivers, so they run concurrently.
 */
describeEachDialect(
  'webhook delivery',
  (ctx) => {
    const receiver = receiverPool();

    it.concurrent('shows one delivery with the very body its attempts sent, and filters deliveries by event type', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const r = await receiver();
      const endpoint = await registerEndpoint(client, r);
      const leadId = await createLead(client, { email: 'tess@example.com' });
      expect((await client.post(`/leads/${leadId}/unsubscribe`, { channels: ['email'] })).status).toBe(200);
      await ctx().runDue();
      expect(r.acknowledged).toHaveLength(1);
      const listed = (await client.get(`/webhooks/${endpoint.id}/deliveries?eventType=optOut`)).body.deliveries as {
        id: string;
        eventId: string;
      }[];
      expect(listed).toHaveLength(1);
      expect((await client.get(`/webhooks/${endpoint.id}/deliveries?eventType=leadTagged`)).body.deliveries).toEqual(
        [],
      );
      expect((await client.get(`/webhooks/${endpoint.id}/deliveries?eventType=nope`)).status).toBe(400);
      // The step returned once the outcome was recorded.
      const one = await client.get(`/webhooks/${endpoint.id}/deliveries/${listed[0]!.id}`);
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ id: listed[0]!.id, status: 'succeeded', attempts: 1 });
      expect(one.body.body).toEqual(r.acknowledged[0]!.json);
      expect((await client.get(`/webhooks/${endpoint.id}/deliveries/${leadId}`)).status).toBe(404);
    });

    it.concurrent('signs every delivery both ways and carries the envelope, with the event id as webhook-id', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const r = await receiver();
      await registerEndpoint(client, r);
      const leadId = await createLead(client, { email: 'ann@example.com', externalLeadId: 'crm-77' });
      const lead = (await client.get(`/leads/${leadId}`)).body;
      const before = Math.floor(Date.now() / 1000);
      expect((await client.post(`/leads/${leadId}/unsubscribe`, {})).status).toBe(200);
      await ctx().runDue();
      expect(r.acknowledged).toHaveLength(3);
      const after = Math.ceil(Date.now() / 1000);

      const events = await outboxFor(ts, leadId, 'optOut');
      expect(events).toHaveLength(3);
      expect(new Set(r.received.map((d) => d.id))).toEqual(new Set(events.map((e) => e.id)));
      for (const d of r.received) {
        expect(d.headers['webhook-id']).toBe(d.id);
        expect(d.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
        expect(d.headers['x-signature-sha256']).toMatch(/^[0-9a-f]{64}$/);
        expect(d.headers['content-type']).toMatch(/^application\/json/);
        expect(d.standardSignatureValid).toBe(true);
        expect(d.legacySignatureValid).toBe(true);
        const ts = Number(d.headers['webhook-timestamp']);
        expect(String(ts)).toBe(d.headers['webhook-timestamp']);
        expect(ts).toBeGreaterThanOrEqual(before - 2);
        expect(ts).toBeLessThanOrEqual(after + 2);
        // A client would refuse a body that was altered, or a signature made with another key.
        expect(verifyLegacy(r.secret, `${d.body} `, String(d.headers['x-signature-sha256']))).toBe(false);
        expect(verifyStandard(r.secret, d.id, String(ts + 1), d.body, String(d.headers['webhook-signature']))).toBe(
          false,
        );

        const event = events.find((e) => e.id === d.id)!;
        expect(Object.keys(d.json)).toEqual(['event', 'timestamp', 'data']);
        expect(d.json.event).toBe('optOut');
        expect(d.json.timestamp).toBe(event.created_at);
        expect(new Date(d.json.timestamp).getTime()).not.toBeNaN();
        // docs.apten.ai/webhooks/opt-out, field for field; email and source are Parley's additions.
        const isEmail = d.json.data.channel === 'email';
        expect(d.json.data).toEqual({
          leadId,
          externalLeadId: 'crm-77',
          phone: lead.phone,
          channel: d.json.data.channel,
          optOutReason: isEmail ? 'MANUAL' : null,
          isTwilioOptOut: isEmail ? null : false,
          optOutMessage: null,
          isDoNotContact: false,
          email: 'ann@example.com',
          source: 'api',
        });
      }
      expect(r.received.map((d) => d.json.data.channel).sort()).toEqual(['call', 'email', 'sms']);
    });

    it.concurrent('sends exactly one optOut per channel that changed, and none for a repeat', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const r = await receiver();
      await registerEndpoint(client, r);
      const leadId = await createLead(client, { email: 'bo@example.com' });

      expect((await client.post(`/leads/${leadId}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
      await ctx().runDue();
      expect(r.acknowledged).toHaveLength(1);
      expect(r.received[0]!.json.data.channel).toBe('sms');

      // sms is already off: only voice and email change.
      expect((await client.post(`/leads/${leadId}/unsubscribe`, {})).status).toBe(200);
      await ctx().runDue();
      expect(r.acknowledged).toHaveLength(3);
      expect(
        r.received
          .slice(1)
          .map((d) => d.json.data.channel)
          .sort(),
      ).toEqual(['call', 'email']);

      expect((await client.post(`/leads/${leadId}/unsubscribe`, {})).status).toBe(200);
      await quietAfterStep(ctx(), r, 400);
      expect(r.received).toHaveLength(3);
      expect(new Set(r.received.map((d) => d.id)).size).toBe(3);
      expect((await outboxFor(ts, leadId)).filter((e) => e.type !== 'lead.created')).toHaveLength(3);
    });

    it.concurrent('50 concurrent unsubscribes of one lead yield exactly one delivery per channel', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const r = await receiver();
      await registerEndpoint(client, r);
      const leadId = await createLead(client, { email: 'cy@example.com' });
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => client.post(`/leads/${leadId}/unsubscribe`, {})),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
      await ctx().runDue();
      expect(r.acknowledged.length).toBeGreaterThanOrEqual(3);
      await quietAfterStep(ctx(), r, 400);
      expect(r.received.map((d) => d.json.data.channel).sort()).toEqual(['call', 'email', 'sms']);
      expect(new Set(r.received.map((d) => d.id)).size).toBe(3);
    });

    it.concurrent('an endpoint registered for resubscribed gets only those; one for every type gets all', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const only = await receiver();
      const all = await receiver();
      await registerEndpoint(client, only, ['resubscribed']);
      await registerEndpoint(client, all);
      const leadId = await optOutLead(client);
      expect((await client.post(`/leads/${leadId}/resubscribe`, {})).status).toBe(200);
      await ctx().runDue();
      expect(all.acknowledged).toHaveLength(4);
      await ctx().runDue();
      expect(only.acknowledged).toHaveLength(2);
      await quietAfterStep(ctx(), only, 200);
      expect(only.received.map((d) => d.json.event)).toEqual(['resubscribed', 'resubscribed']);
      expect(only.received.every((d) => d.standardSignatureValid && d.legacySignatureValid)).toBe(true);
      expect(all.received.map((d) => d.json.event).sort()).toEqual([
        'optOut',
        'optOut',
        'resubscribed',
        'resubscribed',
      ]);
      // Same events, same ids, whichever endpoint they went to.
      const resubscribedIds = all.received
        .filter((d) => d.json.event === 'resubscribed')
        .map((d) => d.id)
        .sort();
      expect(only.received.map((d) => d.id).sort()).toEqual(resubscribedIds);
    });

    it.concurrent('two endpoints each get their own copy, signed with their own secret', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const a = await receiver();
      const b = await receiver();
      const epA = await registerEndpoint(client, a);
      const epB = await registerEndpoint(client, b);
      expect(epA.secret).not.toBe(epB.secret);
      await optOutLead(client);
      await ctx().runDue();
      expect(a.acknowledged).toHaveLength(2);
      await ctx().runDue();
      expect(b.acknowledged).toHaveLength(2);
      expect(a.received.map((d) => d.id).sort()).toEqual(b.received.map((d) => d.id).sort());
      for (const [mine, theirs] of [
        [a, epB],
        [b, epA],
      ] as const) {
        for (const d of mine.received) {
          expect(d.standardSignatureValid && d.legacySignatureValid).toBe(true);
          expect(verifyStandard(theirs.secret, d.id, d.timestamp, d.body, String(d.headers['webhook-signature']))).toBe(
            false,
          );
          expect(verifyLegacy(theirs.secret, d.body, String(d.headers['x-signature-sha256']))).toBe(false);
        }
      }
    });

    it.concurrent('after rotateSecret, deliveries are signed with the new secret only', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const r = await receiver();
      const ep = await registerEndpoint(client, r);
      await optOutLead(client);
      await ctx().runDue();
      expect(r.acknowledged).toHaveLength(2);
      expect(r.received.every((d) => d.standardSignatureValid && d.legacySignatureValid)).toBe(true);

      const rotated = await client.post(`/webhooks/${ep.id}/rotateSecret`);
      expect(rotated.status).toBe(200);
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(ep.secret);
      r.secret = rotated.body.secret;
      await optOutLead(client);
      await ctx().runDue();
      expect(r.acknowledged).toHaveLength(4);
      for (const d of r.received.slice(2)) {
        expect(d.standardSignatureValid && d.legacySignatureValid).toBe(true);
        expect(verifyStandard(ep.secret, d.id, d.timestamp, d.body, String(d.headers['webhook-signature']))).toBe(
          false,
        );
        expect(verifyLegacy(ep.secret, d.body, String(d.headers['x-signature-sha256']))).toBe(false);
      }
    });

    it.concurrent('410 Gone disables the endpoint and fails the delivery without retries; later events are held for it, not sent', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const r = await receiver(respond(410));
      const ep = await registerEndpoint(client, r);
      await optOutLead(client);
      // The first 410 ends the endpoint: a second delivery in flight may also see 410; one claimed after is held.
      await ts.runDue();
      const settled = await deliveriesOf(client, ep.id);
      expect(settled).toHaveLength(2);
      for (const d of settled)
        expect(d.status === 'failed' || (d.status === 'pending' && d.nextAttemptAt === null)).toBe(true);
      const failed = settled.filter((d) => d.status === 'failed');
      expect(failed.length).toBeGreaterThanOrEqual(1);
      for (const d of failed) {
        expect(d.attempts).toBe(1);
        expect(d.nextAttemptAt).toBeNull();
        expect(d.lastStatusCode).toBe(410);
      }
      for (const d of settled.filter((d) => d.status === 'pending')) expect(d.attempts).toBe(0);
      const endpoint = await client.get(`/webhooks/${ep.id}`);
      expect(endpoint.status).toBe(200);
      expect(endpoint.body.enabled).toBe(false);
      expect(endpoint.body.disabledReason).toMatch(/410/);

      // A disabled endpoint is sent nothing more; its new events are kept, held until it is enabled again.
      const seen = r.received.length;
      await optOutLead(client);
      await ts.runDue();
      const after = await deliveriesOf(client, ep.id);
      expect(after).toHaveLength(4);
      await quietAfterStep(ctx(), r, 400);
      expect(r.received.length).toBe(seen);
      const held = after.filter((d) => d.status === 'pending');
      expect(held.length).toBeGreaterThanOrEqual(2);
      expect(held.every((d) => d.nextAttemptAt === null && d.attempts === 0)).toBe(true);
    });

    it.concurrent('a 3xx is a failure and is not followed; when the schedule is spent the delivery is failed, and replay delivers it again', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const target = await receiver();
      const r = await receiver(respond(307, { location: target.url }));
      const ep = await registerEndpoint(client, r);
      const leadId = await createLead(client);
      expect((await client.post(`/leads/${leadId}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);

      // Eight attempts on the fast schedule's real-time spacing, run by the worker's loop: a bounded wait.
      const [failed] = await eventually(
        'the delivery failed',
        async () => {
          const list = await deliveriesOf(client, ep.id);
          return list.length === 1 && list[0]!.status === 'failed' && list;
        },
        15_000,
      );
      expect(failed).toMatchObject({
        status: 'failed',
        attempts: FAST_SCHEDULE_LENGTH,
        lastStatusCode: 307,
        nextAttemptAt: null,
      });
      expect(r.received).toHaveLength(FAST_SCHEDULE_LENGTH);
      expect(new Set(r.received.map((d) => d.id))).toEqual(new Set([failed!.eventId]));
      expect(target.received).toHaveLength(0);

      r.behaviour = respond(200);
      const replay = await client.post(`/webhooks/${ep.id}/deliveries/${failed!.id}/replay`);
      expect(replay.status).toBe(202);
      await ctx().runDue();
      expect(r.acknowledged).toHaveLength(1);
      expect(r.acknowledged[0]!.id).toBe(failed!.eventId);
      expect(r.acknowledged[0]!.standardSignatureValid && r.acknowledged[0]!.legacySignatureValid).toBe(true);
      const after = await deliveriesOf(client, ep.id);
      expect(after.find((d) => d.id === replay.body.deliveryId)?.status).toBe('succeeded');
      expect(after.find((d) => d.id === failed!.id)).toMatchObject({
        status: 'failed',
        attempts: FAST_SCHEDULE_LENGTH,
      });
      expect(target.received).toHaveLength(0);
    });

    it.concurrent('retries keep the webhook-id; a 429 with Retry-After: 1 holds the next attempt back to the next step of the schedule, not beyond', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const seen = new Map<string, number>();
      const r = await receiver((req, res) => {
        const id = String(req.headers['webhook-id']);
        const n = (seen.get(id) ?? 0) + 1;
        seen.set(id, n);
        if (n === 1) res.writeHead(500).end();
        else if (n === 2) res.writeHead(429, { 'retry-after': '1' }).end();
        else res.writeHead(200).end('{}');
      });
      const ep = await registerEndpoint(client, r);
      const leadId = await createLead(client);
      expect((await client.post(`/leads/${leadId}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
      // The retries' spacing is what is checked: the worker's own loop runs them on real time, so this
      // waits (bounded, for the success) instead of stepping.
      await r.until(() => r.acknowledged.length === 1, 10_000);
      const [event] = await outboxFor(ts, leadId, 'optOut');
      const attempts = r.attemptsFor(event!.id);
      expect(attempts).toHaveLength(3);
      expect(r.received).toHaveLength(3);
      expect(
        attempts.every(
          (d) => d.headers['webhook-id'] === event!.id && d.standardSignatureValid && d.legacySignatureValid,
        ),
      ).toBe(true);
      expect(new Set(attempts.map((d) => d.body)).size).toBe(1);
      // The schedule alone would retry after ~200 ms (±10 %); Retry-After asks for a second, and is honoured
      // up to the step after that one (300 ms), never beyond (webhooks/retry.ts).
      expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(290);
      expect(attempts[2]!.at - attempts[1]!.at).toBeLessThan(950);
      const [delivery] = await eventually('the success is recorded', async () => {
        const list = await deliveriesOf(client, ep.id);
        return list[0]?.status === 'succeeded' && list;
      });
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, lastStatusCode: 200, nextAttemptAt: null });
    });
  },
  FAST_WEBHOOKS,
);
