import { claimJobs, finishJob } from '../../src/jobs/jobs.repository.js';
import type { Deps } from '../../src/platform/deps.js';

/** Claims and finishes every job due now, so a test starts from an empty queue (with the server's own worker off, nothing else runs them). */
export async function drainDueJobs(deps: Deps): Promise<void> {
  for (let jobs = await claimJobs(deps, 100); jobs.length > 0; jobs = await claimJobs(deps, 100)) {
    for (const job of jobs) await finishJob(deps.db, job, deps.clock.now().toISOString());
  }
}
