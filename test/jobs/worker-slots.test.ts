import { expect, it } from 'vitest';
import { enqueueJob } from '../../src/jobs/jobs.repository.js';
import type { JobHandlers } from '../../src/jobs/runner.js';
import { jobHandlers } from '../../src/worker/catalog.js';
import { Worker } from '../../src/worker/worker.js';
import { findOrganizationByName } from '../../src/organizations/organizations.repository.js';
import { describeEachDialect } from '../support/harness.js';
import { drainDueJobs } from '../support/jobs.js';
import { until } from '../support/assert.js';

/**
 * A worker runs 16 jobs at once. When all 16 slots are taken, the loop finds
 * nothing to claim into and sleeps; a job ending must wake it, or a 17th due
 * job waits for the next poll. The poll here is 5 s, so a 17th job that starts
 * within 2 s of the first one ending was claimed because a slot came free.
 */
describeEachDialect(
  'worker job slots',
  (ctx) => {
    it('a due job waiting behind 16 running ones starts when one of them ends, not at the next poll', async () => {
      const ts = ctx();
      const { deps } = ts.server;
      const db = ts.server.store.db;
      // Nothing else due (the server's own worker is off): this worker's slots hold only the jobs below.
      await drainDueJobs(deps);
      const org = (await findOrganizationByName(db, 'acme'))!.id;
      const started = new Map<string, number>();
      // The jobs name campaigns that do not exist; the handler only holds its slot for 300 ms.
      const handlers: JobHandlers = {
        ...jobHandlers,
        'campaign.run': {
          retryDelaysMs: [],
          run: async (_deps, job) => {
            started.set(job.payload.campaignId, Date.now());
            await new Promise((r) => setTimeout(r, 300));
            return { kind: 'done' };
          },
        },
      };
      const due = new Date(Date.now() - 1000);
      for (let i = 0; i < 17; i++) {
        const at = new Date(due.getTime() + i);
        await enqueueJob(db, org, 'campaign.run', { campaignId: `slot-${i}`, generation: 0 }, at, at.toISOString());
      }
      const worker = new Worker({ ...deps, config: { ...deps.config, workerPollMs: 5000 } }, handlers);
      worker.start();
      try {
        await until(
          () => started.size,
          (n) => n >= 17,
          4000,
          { what: 'every slot started', every: 20 },
        );
      } finally {
        await worker.stop();
      }
      expect(started.size).toBe(17);
      const times = [...started.values()].sort((a, b) => a - b);
      // The first 16 together, the 17th once one of them ended (300 ms), long before the 5 s poll.
      expect(times[15]! - times[0]!).toBeLessThan(250);
      expect(times[16]! - times[0]!).toBeGreaterThanOrEqual(250);
      expect(times[16]! - times[0]!).toBeLessThan(2000);
    });
    // The server's own worker is off: the jobs are this test's worker's alone.
  },
  { PARLEY_WORKER: 'false' },
);
