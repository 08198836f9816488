import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { enqueueJob } from '../../src/jobs/jobs.repository.js';
import { findOrganizationByName } from '../../src/organizations/organizations.repository.js';
import { WORK_CHANNEL } from '../../src/platform/db/wake.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { createLead, describeEachDialect, uniquePhone } from '../support/harness.js';
import { ALWAYS_OPEN, SID, TOKEN, twilioEnv, until } from '../sending-numbers/helpers.js';
import { FAST_WEBHOOKS, freshOrg, receiverPool, registerEndpoint } from '../support/webhooks.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

const fake = await startFakeTwilio(SID, TOKEN);
afterAll(() => fake.close());

/**
 * Work wakes the worker when its transaction commits. The poll here is 5 s,
 * so anything that arrives within 500 ms of the API's answer was woken by
 * the commit, not found by the poll. Of four, three must arrive within 500 ms
 * and all within 1500 ms: a loaded machine may delay one, while without a
 * wake each waits for the poll.
 */
function expectWoken(latencies: number[]): void {
  expect(latencies.filter((ms) => ms < 500).length, JSON.stringify(latencies)).toBeGreaterThanOrEqual(3);
  expect(Math.max(...latencies), JSON.stringify(latencies)).toBeLessThan(1500);
}

describeEachDialect(
  'wake on commit',
  (ctx) => {
    startEachTestInDaytime(ctx);
    const receivers = receiverPool();

    it("a lead created with an opening reaches the carrier within 500 ms of the API's answer", async () => {
      const ts = ctx();
      expect((await ts.acme.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: '+16285550142' })).status).toBe(200);
      expect(
        (await ts.acme.post('/customerProfiles', { name: 'wake-greeter', openingMessage: 'Hi {{firstName}}' })).status,
      ).toBe(201);
      // The first send of a process loads the provider's client (seconds on a loaded machine): not measured.
      const latencies: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const phone = uniquePhone();
        await createLead(ts.acme, { firstName: `Wake${i}`, phone, customerProfile: 'wake-greeter' });
        const answered = Date.now();
        const [arrived] = await until(
          () => fake.accepted('Messages', (p) => p.To === phone),
          (r) => r.length > 0,
          6000,
        );
        expect(arrived!.params.Body).toBe(`Hi Wake${i}`);
        if (i > 0) latencies.push(arrived!.at - answered);
      }
      expectWoken(latencies);
    });

    it("a webhook delivery reaches its receiver within 500 ms of the API's answer", async () => {
      const ts = ctx();
      const client = await freshOrg(ts, 'wake');
      const receiver = await receivers();
      await registerEndpoint(client, receiver, ['optOut']);
      const latencies: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const lead = await createLead(client, { firstName: `Hook${i}` });
        expect((await client.post(`/leads/${lead}/unsubscribe`, {})).status).toBe(200);
        const answered = Date.now();
        const got = await until(
          () => receiver.received.filter((r) => r.json.data.leadId === lead),
          (r) => r.length > 0,
          6000,
        );
        // The first delivery opens the connection to the receiver: not measured.
        if (i > 0) latencies.push(got[0]!.at - answered);
      }
      expectWoken(latencies);
    });
  },
  { ...twilioEnv(fake), ...FAST_WEBHOOKS, PARLEY_WORKER_POLL_MS: '5000' },
);

/**
 * Only a commit wakes: a transaction that wrote a job and rolled back wakes
 * nobody, in this process (the store's counter) or, on PostgreSQL, in any
 * other (a LISTEN on the channel). No worker runs on this server, so the
 * test's transactions are the only ones that write work.
 */
describeEachDialect(
  'wake on commit, never on rollback',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('counts a committed transaction that wrote work once, after its commit; a rolled-back one never', async () => {
      const ts = ctx();
      const { db, work } = ts.server.store;
      const org = (await findOrganizationByName(db, 'acme'))!.id;
      const heard: string[] = [];
      const listener =
        ts.dialect === 'postgres' ? new pg.Client({ connectionString: ts.config.databaseUrl }) : undefined;
      if (listener) {
        await listener.connect();
        listener.on('notification', (n) => heard.push(n.channel));
        await listener.query(`listen ${WORK_CHANNEL}`);
      }
      try {
        const later = new Date(Date.now() + 3_600_000);
        const job = (trx: typeof db, i: number) =>
          enqueueJob(
            trx,
            org,
            'campaign.run',
            { campaignId: `wake-${i}`, generation: 0 },
            later,
            new Date().toISOString(),
          );
        const before = work.committed;
        await expect(
          db.transaction().execute(async (trx) => {
            await job(trx, 1);
            // Written, not committed: nobody is woken yet.
            expect(work.committed).toBe(before);
            throw new Error('roll back');
          }),
        ).rejects.toThrow('roll back');
        // After the rollback step: still no wake.
        expect(work.committed).toBe(before);
        expect(await db.selectFrom('jobs').select('id').where('payload', 'like', '%wake-1%').execute()).toEqual([]);

        await db.transaction().execute(async (trx) => {
          await job(trx, 2);
          expect(work.committed).toBe(before);
        });
        expect(work.committed).toBe(before + 1);
        if (listener) {
          // Notifications arrive in commit order: one from the rollback would have come before this one.
          await until(
            () => heard.length,
            (n) => n >= 1,
            5000,
          );
          expect(heard).toEqual([WORK_CHANNEL]);
        }
      } finally {
        await listener?.end();
      }
    });
  },
  { PARLEY_WORKER: 'false' },
);
