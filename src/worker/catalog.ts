import { runAgentTurn } from '../agent/turn.js';
import { runOpening } from '../agent/opening.js';
import { sendRecordedMessage } from '../channels/outbound.js';
import { runFollowUp } from '../followups/followup.job.js';
import { runCampaign } from '../campaigns/campaign.job.js';
import { runHandoffAlert, runHandoffEscalation, runOwnerAlert } from '../handoffs/alerts.js';
import { runWaitingCall } from '../calls/calls.service.js';
import { runAppointmentReminder } from '../appointments/reminder.job.js';
import { runAppointmentInvite } from '../appointments/invite.job.js';
import { failJob } from '../jobs/jobs.repository.js';
import type { ClaimedJob, JobName, JobOutcome, JobPayloads } from '../jobs/names.js';
import type { JobHandler, JobHandlers } from '../jobs/runner.js';
import type { Deps } from '../platform/deps.js';

/*
 * The worker's catalog: which code runs each job name. It lives in the
 * composition root, beside the process that runs it, so the queue stays a
 * leaf and no capability imports another to trigger work: it enqueues by name.
 */

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
      deps.log.warn(
        { job: job.name, jobId: job.id, attempt: job.attempts + 1, result, err: message },
        'job attempt failed',
      );
      const delay = delays[job.attempts] ?? 0;
      return { kind: 'defer', until: new Date(now.getTime() + delay), reason: message };
    }
  };
}

/** Every job runs under the default retry schedule (or the configured one). */
const withRetries = <N extends JobName>(run: Parameters<typeof underConfiguredRetries<N>>[0]) => ({
  retryDelaysMs: DEFAULT_JOB_RETRIES,
  run: underConfiguredRetries<N>(run),
});

export const jobHandlers: JobHandlers = {
  'message.send': withRetries<'message.send'>((deps, job, lastAttempt) => sendRecordedMessage(deps, job, lastAttempt)),
  'ai.turn': withRetries<'ai.turn'>((deps, job, lastAttempt) =>
    runAgentTurn(deps, job.organizationId, job.payload, lastAttempt),
  ),
  'followup.send': withRetries<'followup.send'>((deps, job, lastAttempt) => runFollowUp(deps, job, lastAttempt)),
  'ai.opening': withRetries<'ai.opening'>((deps, job, lastAttempt) =>
    runOpening(deps, job.organizationId, job.payload, lastAttempt),
  ),
  'campaign.run': withRetries<'campaign.run'>((deps, job) => runCampaign(deps, job)),
  'handoff.alert': withRetries<'handoff.alert'>((deps, job) => runHandoffAlert(deps, job.organizationId, job.payload)),
  'handoff.escalate': withRetries<'handoff.escalate'>((deps, job) =>
    runHandoffEscalation(deps, job.organizationId, job.payload),
  ),
  'owner.alert': withRetries<'owner.alert'>((deps, job) =>
    runOwnerAlert(deps, job.organizationId, job.payload, job.id),
  ),
  'call.place': withRetries<'call.place'>((deps, job) => runWaitingCall(deps, job.organizationId, job.payload.callId)),
  'appointment.remind': withRetries<'appointment.remind'>((deps, job) =>
    runAppointmentReminder(deps, job.organizationId, job.payload),
  ),
  'appointment.invite': withRetries<'appointment.invite'>((deps, job) =>
    runAppointmentInvite(deps, job.organizationId, job.payload),
  ),
};
