/**
 * The names of background jobs and the payload each carries. The queue is a
 * leaf: it knows names and payload types, never handlers, so any capability
 * can enqueue work by name without importing whoever runs it. The map from
 * name to handler is the worker's (worker/catalog.ts), beside the process
 * that runs it. Payloads carry ids, never objects, so a job always acts on the
 * current state of what it names.
 */

import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';

const Id = Type.String({ minLength: 1 });
const Generation = Type.Integer({ minimum: 0 });

/**
 * Each job's payload schema. A payload is checked against it when the job is
 * claimed (jobs/runner.ts): a job written by an older version, or by hand,
 * that does not match fails with the reason instead of reaching a handler
 * that would misread it.
 */
export const JOB_PAYLOAD_SCHEMAS = {
  /** Send one recorded outbound message through the gate and its channel (channels/outbound.ts). */
  'message.send': Type.Object({
    messageId: Id,
    sendWhenOff: Type.Boolean(),
    /** Lifts the organization's own contact hours (sendMessage `overrideBusinessHours`), never the legal window. */
    overrideBusinessHours: Type.Optional(Type.Boolean()),
  }),
  /** One AI agent turn answering one inbound message (agent/turn.ts); retried on a failing model, then recorded as failed. */
  'ai.turn': Type.Object({
    leadId: Id,
    /** The inbound message that triggered the turn: the turn's identity (one turn per message, ever). */
    messageId: Id,
  }),
  /** The lead's due follow-up step: the agent writes it, then it is sent like any message (agent/followup.job.ts). */
  'followup.send': Type.Object({
    leadId: Id,
    /** The lead's follow_up_generation when the step was scheduled: a reschedule or stop since then makes the job a no-op. */
    generation: Generation,
  }),
  /** The agent writes a profile's opening message when the profile has no template (agent/opening.ts). */
  'ai.opening': Type.Object({
    leadId: Id,
    /** The opening asked for (lead_openings row): the job's identity; it is composed once, ever. */
    openingId: Id,
  }),
  /** A running campaign's next batch of openings, within its daily cap (campaigns/campaign.job.ts). */
  'campaign.run': Type.Object({
    campaignId: Id,
    /** The campaign's run_generation when the job was made: a pause, resume or cancel since then makes it a no-op. */
    generation: Generation,
  }),
  /** Alert a hand-off's owner (or the admins) by email and SMS (handoffs/alerts.ts). */
  'handoff.alert': HandoffLevel(),
  /** An unacknowledged hand-off moves on to the next rep, then to the admins (handoffs/alerts.ts). */
  'handoff.escalate': HandoffLevel(),
  /** Alert a lead's owner (or the admins) of a notification the agent raised (handoffs/alerts.ts). */
  'owner.alert': Type.Object({
    leadId: Id,
    /** The notification's name and message (the agent's `notify`). */
    name: Type.String(),
    message: Type.String(),
  }),
  /** Email the organization's admins that the carrier refused a sending number as a sender (handoffs/alerts.ts; deliverability/ enqueues it). */
  'sendingNumber.alert': Type.Object({
    /** The pool number's id; null for the settings number. */
    sendingNumberId: Type.Union([Id, Type.Null()]),
    number: Type.String(),
    /** The provider's code (`twilio:30034`) and the sentence of the `sendingNumber.unusable` event. */
    code: Type.String(),
    reason: Type.String(),
  }),
  /** The missed-call text to an unknown caller, judged by their number (calls/calls.service.ts runMissedCallText). */
  'call.missed-text': Type.Object({ callId: Id }),
  /** A live call that waited for contact hours or its number's pace: the gate is asked again, then it is dialled (calls/calls.service.ts). */
  'call.place': Type.Object({
    /** The waiting call (calls row). */
    callId: Id,
  }),
  /** A message sent with channel voice (sendMessage) becomes a live call whose greeting it is (calls/message-call.ts). */
  'message.call': Type.Object({
    messageId: Id,
    sendWhenOff: Type.Boolean(),
    /** Lifts the organization's own contact hours (sendMessage `overrideBusinessHours`), never the legal window. */
    overrideBusinessHours: Type.Optional(Type.Boolean()),
  }),
  /** A reminder before an appointment, or the no-show follow-up: a message through the gate (appointments/reminder.job.ts). */
  'appointment.remind': Type.Object({
    appointmentId: Id,
    /** The appointment_reminders row: the job's identity (sent once, or skipped). */
    reminderId: Id,
  }),
  /** The embedded calendar's invitation (.ics) by email (appointments/invite.job.ts). */
  'appointment.invite': Type.Object({
    appointmentId: Id,
    method: Type.Union([Type.Literal('REQUEST'), Type.Literal('CANCEL')]),
  }),
};

function HandoffLevel() {
  return Type.Object({
    handoffId: Id,
    /** 0: the first owner; 1: the next rep; 2: the admins. A job for a level the hand-off has left does nothing. */
    level: Type.Integer({ minimum: 0, maximum: 2 }),
  });
}

export type JobName = keyof typeof JOB_PAYLOAD_SCHEMAS;
export type JobPayloads = { [N in JobName]: Static<(typeof JOB_PAYLOAD_SCHEMAS)[N]> };

export type SendMessagePayload = JobPayloads['message.send'];
export type AgentTurnPayload = JobPayloads['ai.turn'];
export type AgentOpeningPayload = JobPayloads['ai.opening'];
export type FollowUpPayload = JobPayloads['followup.send'];
export type CampaignRunPayload = JobPayloads['campaign.run'];
export type HandoffJobPayload = JobPayloads['handoff.alert'];
export type OwnerAlertPayload = JobPayloads['owner.alert'];
export type SendingNumberAlertPayload = JobPayloads['sendingNumber.alert'];
export type CallPlacePayload = JobPayloads['call.place'];
export type AppointmentRemindPayload = JobPayloads['appointment.remind'];
export type AppointmentInvitePayload = JobPayloads['appointment.invite'];

const checkers = new Map<string, TypeCheck<TSchema>>();

/**
 * Why a claimed job's payload cannot be run, or undefined when it matches its
 * name's schema. Unknown names are the runner's to report (no handler).
 */
export function payloadProblem(name: string, payload: unknown): string | undefined {
  const schema = (JOB_PAYLOAD_SCHEMAS as Record<string, TSchema | undefined>)[name];
  if (!schema) return undefined;
  let check = checkers.get(name);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    checkers.set(name, check);
  }
  if (check.Check(payload)) return undefined;
  const first = check.Errors(payload).First();
  const where = first?.path ? `${first.path.slice(1).replaceAll('/', '.') || 'payload'}: ` : '';
  return `invalid payload for job "${name}": ${where}${first?.message ?? 'does not match its schema'}`;
}

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
  /** Set when the stored payload is not JSON: the job fails with this reason, the worker goes on. */
  unreadable?: string;
  /** This claim's fence: only while the job still carries it may this worker send for it or complete it. */
  leaseToken: string;
}
