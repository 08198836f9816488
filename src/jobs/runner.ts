import { isoNow } from '../platform/clock.js';
import type { Deps } from '../platform/deps.js';
import { jobHandlers, type JobHandler, type JobName } from './catalog.js';
import { claimJobs, deferJob, failJob, finishJob, type ClaimedJob } from './queue.js';

async function runOne(deps: Deps, job: ClaimedJob): Promise<void> {
  const handler = (jobHandlers as Record<string, JobHandler<JobName> | undefined>)[job.name];
  if (!handler) {
    await failJob(deps.db, job, `no handler for job "${job.name}"`, [], deps.clock.now());
    return;
  }
  try {
    const outcome = await handler.run(deps, job as ClaimedJob & { payload: never });
    if (outcome.kind === 'done') await finishJob(deps.db, job, isoNow(deps.clock));
    else await deferJob(deps.db, job, outcome.until, isoNow(deps.clock));
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const result = await failJob(deps.db, job, message, handler.retryDelaysMs, deps.clock.now());
    deps.log.warn({ job: job.name, jobId: job.id, attempt: job.attempts + 1, result, err: message }, 'job attempt failed');
  }
}

/** Claims due jobs and runs them concurrently; answers how many were claimed. */
export async function runDueJobs(deps: Deps, limit: number): Promise<number> {
  const jobs = await claimJobs(deps, limit);
  await Promise.all(jobs.map((j) => runOne(deps, j)));
  return jobs.length;
}
