/**
 * The names of background jobs and the payload each carries. The queue is a
 * leaf: it knows names and payload types, never handlers, so any capability
 * can enqueue work by name without importing whoever runs it. The map from
 * name to handler is the worker's (worker/catalog.ts), beside the process
 * that runs it. Payloads carry ids, never objects, so a job always acts on the
 * current state of what it names.
 */

export interface SendMessagePayload {
  messageId: string;
  sendWhenOff: boolean;
  /** Lifts the organization's own contact hours (sendMessage `overrideBusinessHours`), never the legal window. */
  overrideBusinessHours?: boolean;
}

export interface AgentTurnPayload {
  leadId: string;
  /** The inbound message that triggered the turn: the turn's identity (one turn per message, ever). */
  messageId: string;
}

export interface AgentOpeningPayload {
  leadId: string;
  /** The opening asked for (lead_openings row): the job's identity; it is composed once, ever. */
  openingId: string;
}

export interface FollowUpPayload {
  leadId: string;
  /** The lead's follow_up_generation when the step was scheduled: a reschedule or stop since then makes the job a no-op. */
  generation: number;
}

export interface CampaignRunPayload {
  campaignId: string;
  /** The campaign's run_generation when the job was made: a pause, resume or cancel since then makes it a no-op. */
  generation: number;
}

export interface HandoffJobPayload {
  handoffId: string;
  /** 0: the first owner; 1: the next rep; 2: the admins. A job for a level the hand-off has left does nothing. */
  level: number;
}

export interface OwnerAlertPayload {
  leadId: string;
  /** The notification's name and message (the agent's `notify`). */
  name: string;
  message: string;
}

export interface CallPlacePayload {
  /** The waiting call (calls row): dialled when the gate allows it now (calls/calls.service.ts). */
  callId: string;
}

export interface AppointmentRemindPayload {
  appointmentId: string;
  /** The appointment_reminders row: the job's identity (sent once, or skipped). */
  reminderId: string;
}

export interface AppointmentInvitePayload {
  appointmentId: string;
  method: 'REQUEST' | 'CANCEL';
}

export interface JobPayloads {
  /** Send one recorded outbound message through the gate and its channel (channels/outbound.ts). */
  'message.send': SendMessagePayload;
  /** One AI agent turn answering one inbound message (agent/turn.ts); retried on a failing model, then recorded as failed. */
  'ai.turn': AgentTurnPayload;
  /** The lead's due follow-up step: the agent writes it, then it is sent like any message (followups/followup.job.ts). */
  'followup.send': FollowUpPayload;
  /** The agent writes a profile's opening message when the profile has no template (agent/opening.ts). */
  'ai.opening': AgentOpeningPayload;
  /** A running campaign's next batch of openings, within its daily cap (campaigns/campaign.job.ts). */
  'campaign.run': CampaignRunPayload;
  /** Alert a hand-off's owner (or the admins) by email and SMS (handoffs/alerts.ts). */
  'handoff.alert': HandoffJobPayload;
  /** An unacknowledged hand-off moves on to the next rep, then to the admins (handoffs/alerts.ts). */
  'handoff.escalate': HandoffJobPayload;
  /** Alert a lead's owner (or the admins) of a notification the agent raised (handoffs/alerts.ts). */
  'owner.alert': OwnerAlertPayload;
  /** A live call that waited for contact hours or its number's pace: the gate is asked again, then it is dialled (calls/calls.service.ts). */
  'call.place': CallPlacePayload;
  /** A reminder before an appointment, or the no-show follow-up: a message through the gate (appointments/reminder.job.ts). */
  'appointment.remind': AppointmentRemindPayload;
  /** The embedded calendar's invitation (.ics) by email (appointments/invite.job.ts). */
  'appointment.invite': AppointmentInvitePayload;
}

export type JobName = keyof JobPayloads;

/**
 * What a handler reports: finished, or to be run again later without counting
 * a failure (e.g. waiting for contact hours). `punctual`: the job must run at
 * `until` itself, not merely after it (a paced send's slot), so when it comes
 * it is claimed ahead of older due jobs. `finished`: the handler already
 * marked the job done (finishJob, fenced) in the transaction that recorded
 * its result, so the runner writes nothing more: a send's completion is one
 * transaction, not two commits.
 */
export type JobOutcome =
  | { kind: 'done'; finished?: true }
  | { kind: 'defer'; until: Date; reason: string; punctual?: boolean };

export interface ClaimedJob {
  organizationId: string;
  id: string;
  name: string;
  payload: unknown;
  attempts: number;
  /** This claim's fence: only while the job still carries it may this worker send for it or complete it. */
  leaseToken: string;
}
