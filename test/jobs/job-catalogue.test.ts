import { expect, it } from 'vitest';
import { enqueueJob } from '../../src/jobs/jobs.repository.js';
import type { JobHandlers } from '../../src/jobs/runner.js';
import { findOrganizationByName } from '../../src/organizations/organizations.repository.js';
import { jobHandlers } from '../../src/worker/catalog.js';
import { Worker } from '../../src/worker/worker.js';
import { describeEachDialect, type TestServer } from '../support/harness.js';
import { drainDueJobs } from '../support/jobs.js';

/**
 * The job catalogue: a payload is checked against its name's schema when the
 * job is claimed, and a failed attempt is retried on the configured schedule
 * by the runner alone. The campaign job stands in for any job: its handler is
 * replaced so the test sees exactly what reached it.
 */
describeEachDialect(
  'job catalogue',
  (ctx) => {
    async function setup(ts: TestServer, run: JobHandlers['campaign.run']['run'], retries = [60_000]) {
      const { deps } = ts.server;
      await drainDueJobs(deps);
      const org = (await findOrganizationByName(ts.server.store.db, 'acme'))!.id;
      const handlers: JobHandlers = { ...jobHandlers, 'campaign.run': { run } };
      const worker = new Worker({ ...deps, config: { ...deps.config, jobRetryScheduleMs: retries } }, handlers);
      const enqueue = (payload: unknown) => {
        const now = deps.clock.now();
        return enqueueJob(ts.server.store.db, org, 'campaign.run', payload as never, now, now.toISOString());
      };
      const row = (id: string) =>
        ts.server.store.db
          .selectFrom('jobs')
          .select(['status', 'attempts', 'last_error', 'run_at'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
      return { worker, enqueue, row, deps };
    }

    it('a payload that does not match its schema fails that job with the reason; the others in the claim run', async () => {
      const seen: unknown[] = [];
      const { worker, enqueue, row } = await setup(ctx(), async (_deps, job) => {
        seen.push(job.payload);
        return { kind: 'done' };
      });
      const bad = await enqueue({ campaignId: 42, generation: 0 });
      const good = await enqueue({ campaignId: 'c-1', generation: 0 });
      const report = await worker.runDue();
      const reason = 'invalid payload for job "campaign.run": campaignId: Expected string';
      expect(report.jobs).toEqual(
        expect.arrayContaining([
          { id: bad, name: 'campaign.run', outcome: 'failed', error: reason },
          { id: good, name: 'campaign.run', outcome: 'done' },
        ]),
      );
      expect(seen).toEqual([{ campaignId: 'c-1', generation: 0 }]);
      expect(await row(bad)).toMatchObject({ status: 'failed', last_error: reason, attempts: 1 });
    });

    it('a payload missing a field, or with one out of range, is refused too', async () => {
      const seen: unknown[] = [];
      const { worker, enqueue } = await setup(ctx(), async (_deps, job) => {
        seen.push(job.payload);
        return { kind: 'done' };
      });
      const missing = await enqueue({ campaignId: 'c-2' });
      const negative = await enqueue({ campaignId: 'c-3', generation: -1 });
      const report = await worker.runDue();
      const errors = Object.fromEntries(report.jobs.map((r) => [r.id, r.error]));
      expect(errors[missing]).toMatch(/^invalid payload for job "campaign\.run": generation: /);
      expect(errors[negative]).toMatch(/^invalid payload for job "campaign\.run": generation: /);
      expect(seen).toEqual([]);
    });

    it('a stored payload that is not JSON fails its job, not the worker', async () => {
      const seen: unknown[] = [];
      const ts = ctx();
      const { worker, enqueue, row } = await setup(ts, async (_deps, job) => {
        seen.push(job.payload);
        return { kind: 'done' };
      });
      const broken = await enqueue({ campaignId: 'c-4', generation: 0 });
      await ts.server.store.db.updateTable('jobs').set({ payload: '{not json' }).where('id', '=', broken).execute();
      const good = await enqueue({ campaignId: 'c-5', generation: 0 });
      const report = await worker.runDue();
      expect(report.jobs.find((r) => r.id === good)?.outcome).toBe('done');
      const failed = await row(broken);
      expect(failed.status).toBe('failed');
      expect(failed.last_error).toMatch(/^unreadable payload: /);
      expect(seen).toEqual([{ campaignId: 'c-5', generation: 0 }]);
    });

    it('a throwing handler is retried on the configured schedule, told when it is the last attempt, then failed', async () => {
      const ts = ctx();
      const lastAttempts: boolean[] = [];
      const { worker, enqueue, row, deps } = await setup(
        ts,
        async (_deps, _job, lastAttempt) => {
          lastAttempts.push(lastAttempt);
          throw new Error('provider down');
        },
        [60_000],
      );
      const id = await enqueue({ campaignId: 'c-6', generation: 0 });
      const first = await worker.runDue();
      expect(first.jobs).toEqual([{ id, name: 'campaign.run', outcome: 'retry', error: 'provider down' }]);
      const waiting = await row(id);
      expect(waiting).toMatchObject({ status: 'pending', attempts: 1, last_error: 'provider down' });
      expect(new Date(waiting.run_at).getTime() - deps.clock.now().getTime()).toBeGreaterThan(55_000);
      // The retry is due: bring it forward rather than wait a minute.
      await ts.server.store.db
        .updateTable('jobs')
        .set({ run_at: deps.clock.now().toISOString() })
        .where('id', '=', id)
        .execute();
      const second = await worker.runDue();
      expect(second.jobs).toEqual([{ id, name: 'campaign.run', outcome: 'failed', error: 'provider down' }]);
      expect(lastAttempts).toEqual([false, true]);
      expect(await row(id)).toMatchObject({ status: 'failed', attempts: 2 });
    });
    // The server's own worker is off: the jobs are this test's worker's alone.
  },
  { PARLEY_WORKER: 'false' },
);
