import type { Deps } from '../platform/deps.js';
import type { ClaimedJob } from './queue.js';

/**
 * The typed catalog of background jobs: name -> payload. Payloads carry ids,
 * never objects, so a job always acts on the current state of what it names.
 * Capabilities add their job here and register a handler in `jobHandlers`.
 */
export interface JobPayloads {
  /** Placeholder for the type map; real jobs are added by the capabilities that own them. */
  'noop': Record<string, never>;
}

export type JobName = keyof JobPayloads;

export type JobOutcome = { kind: 'done' } | { kind: 'defer'; until: Date; reason: string };

export interface JobHandler<N extends JobName = JobName> {
  /** Delays between failed attempts; when spent, the job is marked failed with its last error. */
  retryDelaysMs: number[];
  run(deps: Deps, job: ClaimedJob & { payload: JobPayloads[N] }): Promise<JobOutcome>;
}

export const DEFAULT_JOB_RETRIES = [10_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000];

export const jobHandlers: { [N in JobName]: JobHandler<N> } = {
  noop: { retryDelaysMs: [], run: async () => ({ kind: 'done' }) },
};
