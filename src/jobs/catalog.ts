import { sendRecordedMessage, type SendMessagePayload } from '../channels/outbound.js';
import { runAgentTurn, type AgentTurnPayload } from '../agent/turn.js';
import type { Deps } from '../platform/deps.js';
import { failJob, type ClaimedJob } from './queue.js';

/**
 * The typed catalog of background jobs: name -> payload. Payloads carry ids,
 * never objects, so a job always acts on the current state of what it names.
 * Capabilities add their job here and register a handler in `jobHandlers`.
 */
export interface JobPayloads {
  /** Send one recorded outbound message through the gate and its channel. */
  'message.send': SendMessagePayload;
  /** One AI agent turn answering one inbound message (agent/turn.ts); retried on a failing model, then recorded as failed. */
  'ai.turn': AgentTurnPayload;
}

export type JobName = keyof JobPayloads;

export type JobOutcome = { kind: 'done' } | { kind: 'defer'; until: Date; reason: string };

export interface JobHandler<N extends JobName = JobName> {
  /** Delays between failed attempts; when spent, the job is marked failed with its last error. */
  retryDelaysMs: number[];
  run(deps: Deps, job: ClaimedJob & { payload: JobPayloads[N] }): Promise<JobOutcome>;
}

export const DEFAULT_JOB_RETRIES = [10_000, 60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000];

/**
 * Runs a job under the operator's retry schedule (PARLEY_JOB_RETRY_SCHEDULE,
 * default DEFAULT_JOB_RETRIES). The runner only knows a handler's static
 * `retryDelaysMs`, so a failed attempt is counted here, with the configured
 * delays, and the runner is handed a deferral to the very time failJob chose:
 * it only releases the lease. `lastAttempt` lets the job record its own final
 * failure (a message ends `failed` with its reason).
 */
function underConfiguredRetries<N extends JobName>(
  run: (deps: Deps, job: ClaimedJob & { payload: JobPayloads[N] }, lastAttempt: boolean) => Promise<JobOutcome>,
): JobHandler<N>['run'] {
  return async (deps, job) => {
    const delays = deps.config.jobRetryScheduleMs;
    try {
      return await run(deps, job, job.attempts >= delays.length);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const now = deps.clock.now();
      const result = await failJob(deps.db, job, message, delays, now);
      deps.log.warn({ job: job.name, jobId: job.id, attempt: job.attempts + 1, result, err: message }, 'job attempt failed');
      const delay = delays[job.attempts] ?? 0;
      return { kind: 'defer', until: new Date(now.getTime() + delay), reason: message };
    }
  };
}

export const jobHandlers: { [N in JobName]: JobHandler<N> } = {
  'message.send': {
    retryDelaysMs: DEFAULT_JOB_RETRIES,
    run: underConfiguredRetries<'message.send'>((deps, job, lastAttempt) => sendRecordedMessage(deps, job.organizationId, job.payload, lastAttempt)),
  },
  'ai.turn': {
    retryDelaysMs: DEFAULT_JOB_RETRIES,
    run: underConfiguredRetries<'ai.turn'>((deps, job, lastAttempt) => runAgentTurn(deps, job.organizationId, job.payload, lastAttempt)),
  },
};
