import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Worker } from '../../src/worker/worker.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { createLead, dialects, startTestServer, uniquePhone, type TestServer } from '../support/harness.js';
import { ALWAYS_OPEN, twilioEnv } from '../sending-numbers/helpers.js';
import { FAST_WEBHOOKS, freshOrg, receiverPool, registerEndpoint } from '../support/webhooks.js';
import { until } from '../support/assert.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

const fake = await startFakeTwilio('ACpool', 'pool-secret');
afterAll(() => fake.close());

/**
 * What one send costs the worker, counted by statement (no timing): one claim
 * statement, the judgement (the gate, the attempt recorded) in one
 * transaction, the provider call, and one completion transaction that ends
 * the job and records the outcome. The send's own `message.sent` is fanned
 * out in that transaction: with no endpoint wanting it, its commit wakes
 * nobody (it cost every send an empty tick). The server runs no worker loop:
 * a worker built here takes one step, so nothing else claims meanwhile.
 */
for (const dialect of dialects())
  describe(`one claim and one completion per send [${dialect}]`, () => {
    let ts: TestServer;
    let log: string[] = [];
    let counting = false;
    const receivers = receiverPool();
    beforeAll(async () => {
      ts = await startTestServer(
        dialect,
        { ...twilioEnv(fake), ...FAST_WEBHOOKS, PARLEY_WORKER: 'false' },
        { onStatement: (sql) => counting && log.push(sql) },
      );
    });
    afterAll(() => ts?.close());
    // The leads are Californian: the night floor would hold their openings outside 08:00-21:00 there.
    startEachTestInDaytime(() => ts);

    /** A worker whose store handle notes each transaction it opens, in the same log as the statements. */
    function countingWorker(): Worker {
      const db = ts.server.deps.db;
      const noted = new Proxy(db, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target) as unknown;
          if (prop === 'transaction' && counting) log.push('BEGIN');
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
      // The worker's analytics fold is its own transaction, not the send's: left out (0, only before reports).
      return new Worker({ ...ts.server.deps, db: noted, config: { ...ts.server.deps.config, analyticsFoldMs: 0 } });
    }

    async function openingStep(client: TestServer['acme'], profile: string) {
      const phone = uniquePhone();
      const worker = countingWorker();
      // A new worker's first tick does the hourly housekeeping beside whatever it claims: done here, uncounted.
      await worker.runDue();
      await createLead(client, { firstName: 'Count', phone, customerProfile: profile });
      const wakes = ts.server.store.work.committed;
      log = [];
      counting = true;
      try {
        await worker.runDue();
      } finally {
        counting = false;
      }
      expect(fake.accepted('Messages', (p) => p.To === phone)).toHaveLength(1);
      return { statements: log, wakes: ts.server.store.work.committed - wakes };
    }

    it('an opening is claimed by one statement and completed in one transaction, and wakes nobody', async () => {
      expect((await ts.acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: '+16285550143' })).status).toBe(200);
      expect(
        (await ts.acme.post('/customerProfiles', { name: 'counted', openingMessage: 'Hi {{firstName}}' })).status,
      ).toBe(201);
      const step = await openingStep(ts.acme, 'counted');
      // The delivery pipeline claims concurrently with the send (nothing to deliver here): its statement may land
      // anywhere in the log, even between a BEGIN and the first statement of that transaction, so it is left out.
      const statements = step.statements.filter((q) => !/^update "webhook_deliveries" set "lease_until"/.test(q));
      const { wakes } = step;
      const at = (re: RegExp) => statements.findIndex((q) => re.test(q));
      const claims = statements.filter((q) => /^update "jobs" set "lease_until"/.test(q));
      const attempt = at(/^update "messages" set "status"/);
      const finish = at(/^update "jobs" set "status"/);
      // One claim statement per look at the queue: the one that took the send, and the step's last, empty one.
      expect(claims, statements.join('\n')).toHaveLength(2);
      expect(statements.slice(0, attempt).filter((q) => /^update "jobs" set "lease_until"/.test(q))).toHaveLength(1);
      // The message is read once before its send, under the lead's lock: whether it is a voice message is decided there too.
      const reads = statements.slice(0, attempt).filter((q) => /^select \* from "messages" /.test(q));
      expect(reads, statements.join('\n')).toHaveLength(1);
      // The job's end opens the completion's transaction, and the outcome follows in it.
      expect(statements[finish - 1], statements.join('\n')).toBe('BEGIN');
      expect(statements.slice(attempt + 1, finish - 1).filter((q) => q === 'BEGIN')).toHaveLength(0);
      const completion = statements.slice(finish);
      const end = completion.indexOf('BEGIN');
      const inCompletion = end === -1 ? completion : completion.slice(0, end);
      expect(inCompletion.filter((q) => /^update "messages" set "status"/.test(q))).toHaveLength(1);
      expect(inCompletion.filter((q) => /^update "jobs" set "status"/.test(q))).toHaveLength(1);
      expect(statements.filter((q) => /^update "jobs" set "status"/.test(q))).toHaveLength(1);
      // No endpoint wants message.sent: nothing committed in the step woke a worker.
      expect(wakes).toBe(0);
    });

    it('a subscribed endpoint still gets message.sent, fanned out by the completion itself', async () => {
      const client = await freshOrg(ts, 'counted');
      const receiver = await receivers();
      await registerEndpoint(client, receiver, ['message.sent']);
      expect((await client.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: '+16285550144' })).status).toBe(200);
      expect(
        (await client.post('/customerProfiles', { name: 'counted', openingMessage: 'Hi {{firstName}}' })).status,
      ).toBe(201);
      const { statements, wakes } = await openingStep(client, 'counted');
      // Its deliveries woke the worker (one commit); the step delivered them.
      expect(wakes).toBe(1);
      expect(statements.filter((q) => /^update "events" set "dispatched_at"/.test(q))).toHaveLength(1); // lead.created only
      const got = await until(
        () => receiver.received.filter((r) => r.json.event === 'message.sent'),
        (r) => r.length > 0,
        5000,
      );
      expect(got).toHaveLength(1);
    });
  });
