import { isoNow } from '../platform/clock.js';
import type { Deps } from '../platform/deps.js';
import { claimJobs, deferJob, failJob, finishJob, nextPunctualDue } from './jobs.repository.js';
import { type ClaimedJob, type JobName, type JobOutcome, type JobPayloads, payloadProblem } from './names.js';

/**
 * A job's code. A throw is a failed attempt: the runner, and only the runner,
 * counts it and schedules the retry. `lastAttempt` tells the handler this is
 * the attempt after which a throw fails the job for good, so it can record its
 * own final state first (a message ends `failed` with its reason).
 */
export interface JobHandler<N extends JobName = JobName> {
  /**
   * The job's retry policy: the delays between failed attempts. Omitted, it is
   * the operator's schedule (PARLEY_JOB_RETRY_SCHEDULE, platform/config.ts).
   */
  retryDelaysMs?: number[];
  run(deps: Deps, job: ClaimedJob & { payload: JobPayloads[N] }, lastAttempt: boolean): Promise<JobOutcome>;
}

/** Every job name with its handler: given by the composition root (worker/catalog.ts), never imported here. */
export type JobHandlers = { [N in JobName]: JobHandler<N> };

/** Jobs one worker runs at once; a slow provider holds one slot, never the worker. */
const JOB_SLOTS = 16;

/** What one run of a job came to: the worker's step (Worker.runDue) answers these. */
export interface JobRun {
  id: string;
  name: string;
  /** done; deferred (to `until`, e.g. contact hours); retry (failed, runs again later); failed (for good). */
  outcome: 'done' | 'deferred' | 'retry' | 'failed';
  until?: string;
  error?: string;
}

async function runOne(deps: Deps, handlers: JobHandlers, job: ClaimedJob): Promise<JobRun> {
  const handler = (handlers as Record<string, JobHandler<JobName> | undefined>)[job.name];
  const run = { id: job.id, name: job.name };
  // A job that cannot be run as written fails for good with the reason: a retry would read the same row.
  const refuse = async (error: string): Promise<JobRun> => {
    await failJob(deps.db, job, error, [], deps.clock.now());
    deps.log.error({ job: job.name, jobId: job.id, err: error }, 'job refused');
    return { ...run, outcome: 'failed', error };
  };
  if (!handler) return refuse(`no handler for job "${job.name}"`);
  const problem = job.unreadable ?? payloadProblem(job.name, job.payload);
  if (problem) return refuse(problem);
  const delays = handler.retryDelaysMs ?? deps.config.jobRetryScheduleMs;
  try {
    const outcome = await handler.run(deps, job as ClaimedJob & { payload: never }, job.attempts >= delays.length);
    if (outcome.kind === 'done') {
      if (!outcome.finished) await finishJob(deps.db, job, isoNow(deps.clock));
      return { ...run, outcome: 'done' };
    }
    await deferJob(deps.db, job, outcome.until, isoNow(deps.clock), outcome.punctual);
    // A send waiting for contact hours is not a silent one: the log says until when, and why.
    deps.log.info(
      { job: job.name, jobId: job.id, until: outcome.until.toISOString(), reason: outcome.reason },
      `${job.name} waits until ${outcome.until.toISOString()}: ${outcome.reason}`,
    );
    return { ...run, outcome: 'deferred', until: outcome.until.toISOString() };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const result = await failJob(deps.db, job, message, delays, deps.clock.now());
    deps.log.warn(
      { job: job.name, jobId: job.id, attempt: job.attempts + 1, result, err: message },
      'job attempt failed',
    );
    return { ...run, outcome: result, error: message };
  }
}

/**
 * Runs jobs in the background of the worker loop: claims into free slots and
 * returns at once, so a model call of many seconds never stalls webhook
 * delivery or other sends. Handlers are idempotent (a job may run again after
 * a crash, at-least-once), and their lease outlives the slowest call they make.
 */
export class JobPipeline {
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];
  /** Told of every run as it ends (the worker's step collects them). */
  private readonly watchers = new Set<(run: JobRun) => void>();

  /**
   * `onSlotFreed` is told when a job ends while every slot was taken: the
   * worker loop, which found nothing to claim into, sleeps until then rather
   * than until its next poll (a 17th due job waited up to the poll interval
   * behind 16 running ones).
   */
  constructor(
    private readonly deps: Deps,
    private readonly handlers: JobHandlers,
    private readonly onSlotFreed: () => void = () => {},
  ) {}

  get busy(): number {
    return this.inFlight;
  }

  /** Free slots: a fill that claims fewer found every due job. */
  get room(): number {
    return Math.max(0, JOB_SLOTS - this.inFlight);
  }

  async fill(): Promise<number> {
    const free = JOB_SLOTS - this.inFlight;
    if (free <= 0) return 0;
    const jobs = await claimJobs(this.deps, free);
    for (const job of jobs) {
      this.inFlight += 1;
      void runOne(this.deps, this.handlers, job)
        .then((run) => this.watchers.forEach((w) => w(run)))
        .catch((err) =>
          this.deps.log.error({ err, jobId: job.id }, 'job bookkeeping failed; its lease will lapse and it runs again'),
        )
        .finally(() => {
          const wasFull = this.inFlight >= JOB_SLOTS;
          this.inFlight -= 1;
          if (wasFull) this.onSlotFreed();
          if (this.inFlight === 0) this.idleWaiters.splice(0).forEach((w) => w());
        });
    }
    return jobs.length;
  }

  /** When the next paced send nobody runs yet comes due (a send deferred to its sending slot), if any waits. */
  nextPacedDue(): Promise<Date | undefined> {
    return nextPunctualDue(this.deps.db);
  }

  /** Calls `watcher` with each run that ends until the returned function is called. */
  watch(watcher: (run: JobRun) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** Resolves when no job is running, or after `ms`. */
  drained(ms: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.idleWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}
