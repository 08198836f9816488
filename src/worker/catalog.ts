import { callForMessage } from '../calls/message-call.js';
import { runAgentTurn } from '../agent/turn.js';
import { runOpening } from '../agent/opening.js';
import { sendRecordedMessage } from '../channels/outbound.js';
import { runFollowUp } from '../agent/followup.job.js';
import { runCampaign } from '../campaigns/campaign.job.js';
import { runHandoffAlert, runHandoffEscalation, runOwnerAlert, runSendingNumberAlert } from '../handoffs/alerts.js';
import { runMissedCallText, runWaitingCall } from '../calls/calls.service.js';
import { runAppointmentReminder } from '../appointments/reminder.job.js';
import { runAppointmentInvite } from '../appointments/invite.job.js';
import type { JobHandlers } from '../jobs/runner.js';

/*
 * The worker's catalog: which code runs each job name. It lives in the
 * composition root, beside the process that runs it, so the queue stays a
 * leaf and no capability imports another to trigger work: it enqueues by name.
 * Every job here retries on the operator's schedule (PARLEY_JOB_RETRY_SCHEDULE);
 * the runner alone counts failed attempts (jobs/runner.ts).
 */

export const jobHandlers: JobHandlers = {
  'message.send': {
    // A voice message has a `message.call` job; a `message.send` job of one (still queued from a version that
    // sent voice as a recorded call) is placed as a live call too. Can go when no such queue is left to upgrade.
    run: (deps, job, lastAttempt) =>
      sendRecordedMessage(deps, job, lastAttempt, (payload) => callForMessage(deps, job.organizationId, payload)),
  },
  'ai.turn': { run: (deps, job, lastAttempt) => runAgentTurn(deps, job.organizationId, job.payload, lastAttempt) },
  'followup.send': { run: (deps, job, lastAttempt) => runFollowUp(deps, job, lastAttempt) },
  'ai.opening': { run: (deps, job, lastAttempt) => runOpening(deps, job.organizationId, job.payload, lastAttempt) },
  'campaign.run': { run: (deps, job) => runCampaign(deps, job) },
  'handoff.alert': { run: (deps, job) => runHandoffAlert(deps, job.organizationId, job.payload) },
  'handoff.escalate': { run: (deps, job) => runHandoffEscalation(deps, job.organizationId, job.payload) },
  'owner.alert': { run: (deps, job) => runOwnerAlert(deps, job.organizationId, job.payload, job.id) },
  'sendingNumber.alert': {
    run: (deps, job) => runSendingNumberAlert(deps, job.organizationId, job.payload, job.id),
  },
  'call.place': { run: (deps, job) => runWaitingCall(deps, job.organizationId, job.payload.callId) },
  'call.missed-text': {
    run: (deps, job, lastAttempt) => runMissedCallText(deps, job.organizationId, job.payload.callId, lastAttempt),
  },
  'message.call': { run: (deps, job) => callForMessage(deps, job.organizationId, job.payload) },
  'appointment.remind': { run: (deps, job) => runAppointmentReminder(deps, job.organizationId, job.payload) },
  'appointment.invite': { run: (deps, job) => runAppointmentInvite(deps, job.organizationId, job.payload) },
};
