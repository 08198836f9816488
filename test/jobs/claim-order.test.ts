import { expect, it } from 'vitest';
import { claimJobs, deferJob, enqueueJob, failJob, finishJob } from '../../src/jobs/jobs.repository.js';
import type { ClaimedJob } from '../../src/jobs/names.js';
import { describeEachDialect, type TestServer } from '../support/harness.js';
import { drainDueJobs } from '../support/jobs.js';

/**
 * The order jobs are claimed in: a job deferred to an exact instant (a paced
 * send's slot) is claimed ahead of older due jobs once that instant comes;
 * every other job stays oldest due first. The jobs here name campaigns that do
 * not exist: with the worker off, nothing runs them, and only the queue's own
 * code is under test, on the real database.
 */
describeEachDialect(
  'job claim order',
  (ctx) => {
    let n = 0;
    async function queue(ts: TestServer, count: number, runAt: Date): Promise<string[]> {
      const db = ts.server.store.db;
      const org = (
        await db.selectFrom('organizations').select('id').where('name', '=', 'acme').executeTakeFirstOrThrow()
      ).id;
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1) {
        // One millisecond apart, so "oldest due first" names one order.
        const at = new Date(runAt.getTime() + i);
        ids.push(
          await enqueueJob(
            db,
            org,
            'campaign.run',
            { campaignId: `claim-order-${n++}`, generation: 0 },
            at,
            at.toISOString(),
          ),
        );
      }
      return ids;
    }
    const punctualOf = async (ts: TestServer, id: string) =>
      (await ts.server.store.db.selectFrom('jobs').select('punctual').where('id', '=', id).executeTakeFirstOrThrow())
        .punctual;

    /** A case at a fixed time, from an empty queue; the clock is given back however it ends. */
    async function scenario(at: string, body: (ts: TestServer, t0: Date) => Promise<void>): Promise<void> {
      const ts = ctx();
      ts.clock.set(at);
      try {
        await drainDueJobs(ts.server.deps);
        await body(ts, ts.server.deps.clock.now());
      } finally {
        ts.clock.reset();
      }
    }

    it('a job deferred to its instant is claimed ahead of a backlog due before it; a plain deferral keeps its place', () =>
      scenario('2026-06-10T19:00:00Z', async (ts, t0) => {
        const { deps } = ts.server;
        const db = ts.server.store.db;
        const backlog = await queue(ts, 6, t0);
        // Two of the backlog are claimed and deferred by 1 s: one to an exact instant, one plainly.
        const [a, b] = await claimJobs(deps, 2);
        // (claimJobs returns a claim's jobs in no particular order: compared as sets.)
        expect([a!.id, b!.id].sort()).toEqual(backlog.slice(0, 2).sort());
        const later = new Date(t0.getTime() + 1000);
        await deferJob(db, a!, later, t0.toISOString(), true);
        await deferJob(db, b!, later, t0.toISOString());
        expect(await punctualOf(ts, a!.id)).toBe(1);
        expect(await punctualOf(ts, b!.id)).toBe(0);

        // Before its instant the punctual job is not due: the backlog comes first.
        const early = await claimJobs(deps, 1);
        expect(early.map((j) => j.id)).toEqual([backlog[2]]);

        ts.clock.advance(2000);
        // Its instant came: it is claimed first, though three of the backlog were due a second before it.
        const [first] = await claimJobs(deps, 1);
        expect(first!.id).toBe(a!.id);
        // The plain deferral is due after the rest of the backlog, and is claimed after it.
        const rest = await claimJobs(deps, 3);
        expect(rest.map((j) => j.id).sort()).toEqual(backlog.slice(3).sort());
        const last = await claimJobs(deps, 10);
        expect(last.map((j) => j.id)).toEqual([b!.id]);

        // Finished, it leaves the punctual lane.
        await finishJob(db, first!, deps.clock.now().toISOString());
        expect(await punctualOf(ts, a!.id)).toBe(0);
        for (const job of [...early, ...rest, ...last]) await finishJob(db, job, deps.clock.now().toISOString());
      }));

    it('a punctual job that fails waits for its retry like any job, and one deferred plainly leaves the lane', () =>
      scenario('2026-06-10T20:00:00Z', async (ts, t0) => {
        const { deps } = ts.server;
        const db = ts.server.store.db;
        // Due before now, both of them: queue() spaces jobs a millisecond apart after the time it is given.
        await queue(ts, 2, new Date(t0.getTime() - 10));
        const [a, b] = (await claimJobs(deps, 2)) as [ClaimedJob, ClaimedJob];
        await deferJob(db, a, t0, t0.toISOString(), true);
        await deferJob(db, b, t0, t0.toISOString(), true);
        const [a2, b2] = (await claimJobs(deps, 2)) as [ClaimedJob, ClaimedJob];
        expect([a2.id, b2.id].sort()).toEqual([a.id, b.id].sort());
        expect(await failJob(db, a2, 'provider down', [1000], deps.clock.now())).toBe('retry');
        await deferJob(db, b2, t0, t0.toISOString());
        expect(await punctualOf(ts, a2.id)).toBe(0);
        expect(await punctualOf(ts, b2.id)).toBe(0);
        await drainDueJobs(ts.server.deps);
      }));
  },
  { PARLEY_WORKER: 'false' },
);
