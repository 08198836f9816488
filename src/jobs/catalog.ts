import { sendRecordedMessage, type SendMessagePayload } from '../channels/outbound.js';
import type { Deps } from '../platform/deps.js';
import type { ClaimedJob } from './queue.js';

/**
 * The typed catalog of background jobs: name -> payload. Payloads carry ids,
 * never objects, so a job always acts on the current state of what it names.
 * Capabilities add their job here and register a handler in `jobHandlers`.
 */
export interface JobPayloads {
  /** Send one recorded outbound message through the gate and its channel. */
  'message.send': SendMessagePayload;
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
  'message.send': {
    retryDelaysMs: DEFAULT_JOB_RETRIES,
    run: (deps: Deps, job) => sendRecordedMessage(deps, job.organizationId, job.payload, job.attempts >= DEFAULT_JOB_RETRIES.length),
  },
};
