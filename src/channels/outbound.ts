import { setTimeout as sleep } from 'node:timers/promises';
import { checkOutbound, type GateDecision } from '../compliance/gate.js';
import type { ExternalVerdict } from '../compliance/external-verdict.js';
import { finishJob, holdsLease } from '../jobs/jobs.repository.js';
import type { ClaimedJob, JobOutcome, SendMessagePayload } from '../jobs/names.js';
import { lockLeadOfMessage, type LeadRow } from '../lead-records/leads.repository.js';
import { findMessage, setMessageStatus, type MessageRow } from '../messages/messages.repository.js';
import { byLiveCall } from '../messages/send.service.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { readSettings, type OrganizationSettings } from '../settings/settings.service.js';
import { askExternalCheck } from './external.js';
import { adapterFor } from './registry.js';
import { SendError, type ChannelAdapter } from '../providers/channel-adapter.js';
import { IN_DOUBT, NEEDS_OPERATOR, RECONCILING, reconcile, recordSent } from './in-doubt.js';
import { chooseSender } from '../sending-numbers/sender.js';
import {
  failUnusableSender,
  pauseForUnusableSender,
  recordSendFailure,
} from '../deliverability/deliverability.service.js';

/** A send waiting for its pool number's pacing slot (status scheduled), and one that could not get a slot within the maximum wait (failed). */
const PACING = 'PACING';
const PACING_TIMEOUT = 'PACING_TIMEOUT';

type Step =
  | { kind: 'skip' }
  | { kind: 'blocked'; pause?: { campaignId: string; number: string; code: string } }
  | { kind: 'wait'; until: Date; reason: string; punctual?: true }
  | { kind: 'ask_external'; message: MessageRow }
  | { kind: 'send'; message: MessageRow; to: string; from: string | null; departAt?: Date }
  | { kind: 'doubt'; message: MessageRow; to: string }
  /** A voice message with Twilio configured: spoken on a live call, not sent (sendRecordedMessage's `byCall`). */
  | { kind: 'call' };

/** A provider call was begun for it and no outcome recorded (the process died, or the answer was lost), or its reconciliation is under way. */
function attemptUnsettled(message: MessageRow): boolean {
  return (
    (message.status === 'sending' && message.attempt_at !== null) ||
    (message.status === IN_DOUBT && message.status_code === RECONCILING)
  );
}

/** The gate's question for a recorded message, asked the same way at first and again after a departure's hold. */
function askGate(
  trx: Db,
  deps: Deps,
  organizationId: string,
  lead: LeadRow,
  message: MessageRow,
  payload: SendMessagePayload,
  settings: OrganizationSettings,
  now: Date,
  external: ExternalVerdict | undefined,
) {
  return checkOutbound(trx, deps.digests, organizationId, {
    lead,
    channel: message.channel,
    purpose: message.purpose,
    sendWhenOff: payload.sendWhenOff,
    automated: message.is_ai_generated === 1,
    settings,
    now,
    overrideBusinessHours: payload.overrideBusinessHours ?? false,
    external,
    inReplyTo: message.in_reply_to,
  });
}

/**
 * Asks the gate about one recorded message, in one transaction under the
 * lead's lock and the job's fence, and records what it decided: blocked (with
 * its code and reason, never dropped), waiting for contact hours (the message
 * shows when it is due), or `sending`.
 */
async function judge(
  deps: Deps,
  job: ClaimedJob,
  payload: SendMessagePayload,
  external?: ExternalVerdict,
  byCall = false,
): Promise<Step> {
  const organizationId = job.organizationId;
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx): Promise<Step> => {
    // Fenced: a worker whose lease lapsed while it waited (here, or on the external check) sends nothing.
    if (!(await holdsLease(trx, job, now.toISOString()))) return { kind: 'skip' };
    const lead = await lockLeadOfMessage(trx, organizationId, payload.messageId);
    if (!lead) return { kind: 'skip' };
    // Read only under the lead's lock: a reply, a stop or a campaign's pause may have blocked it while this waited for the lock.
    const message = await findMessage(trx, organizationId, payload.messageId);
    if (!message) return { kind: 'skip' };
    if (byCall && byLiveCall(deps, message.channel)) return { kind: 'call' };
    const adapter = adapterFor(deps, message.channel);
    // Never a second provider call blind: an attempt without an outcome is settled first (in-doubt.ts). Nothing leaves the log adapter.
    if (attemptUnsettled(message) && adapter.inDoubt !== 'resend')
      return suspect(trx, organizationId, message, lead, adapter);
    if (message.status !== 'scheduled' && message.status !== 'sending' && message.status !== IN_DOUBT)
      return { kind: 'skip' };
    if (message.status === IN_DOUBT && message.status_code === NEEDS_OPERATOR) return { kind: 'skip' };
    // Recorded with the send, before the provider is called: a crash from here on leaves the attempt to be found again.
    const attempt = (from: string | null) =>
      adapter.inDoubt === 'resend' ? {} : { attemptAt: now.toISOString(), attemptFrom: from };
    const settings = await readSettings(trx, organizationId);
    const decision = await askGate(trx, deps, organizationId, lead, message, payload, settings, now, external);
    if (decision.kind === 'ask_external') return { kind: 'ask_external', message };
    if (decision.kind !== 'allowed') {
      await record(trx, organizationId, message.id, decision);
      return decision.kind === 'blocked' ? { kind: 'blocked' } : decision;
    }
    if (message.channel === 'email') {
      await setMessageStatus(trx, organizationId, message.id, { status: 'sending', reason: null, ...attempt(null) });
      // biome-ignore lint/style/noNonNullAssertion: the gate allowed an email, which it refuses (NO_ADDRESS) for a lead without one
      return { kind: 'send', message, to: lead.email!, from: null };
    }
    // Pacing only delays (or, past the maximum wait, fails) what the gate allowed; the gate judges again when the slot comes.
    const sender = await chooseSender(
      trx,
      organizationId,
      lead,
      message,
      settings.sendingNumber,
      deps.clock,
      deps.config.pacingMaxWaitMs,
    );
    const { segments } = sender;
    if (sender.kind === 'too_late') {
      await setMessageStatus(trx, organizationId, message.id, {
        status: 'failed',
        code: PACING_TIMEOUT,
        reason: `not sent: ${sender.reason}`.slice(0, 500),
        segments,
        pacedUntil: null,
        pacedSince: null,
      });
      return { kind: 'blocked' };
    }
    if (sender.kind === 'later') {
      const reason = `waiting for a sending slot on ${sender.number} (paced to its rate)`;
      const until = sender.until.toISOString();
      await setMessageStatus(trx, organizationId, message.id, {
        status: 'scheduled',
        code: PACING,
        reason,
        scheduledAt: until,
        segments,
        sendingNumberId: sender.numberId,
        pacedUntil: until,
        pacedSince: sender.since.toISOString(),
      });
      return { kind: 'wait', until: sender.until, reason, punctual: true };
    }
    if (sender.kind === 'settings' && sender.from !== null && settings.sendingNumberUnusableAt !== null) {
      // The carrier refused this number as a sender: another send from it would be paid for and refused again.
      const unusable = { number: sender.from, code: settings.sendingNumberUnusableCode ?? 'unknown' };
      await failUnusableSender(trx, organizationId, lead, message, unusable, deps.clock.now().toISOString());
      return message.campaign_id
        ? { kind: 'blocked', pause: { campaignId: message.campaign_id, ...unusable } }
        : { kind: 'blocked' };
    }
    if (sender.kind === 'settings') {
      await setMessageStatus(trx, organizationId, message.id, {
        status: 'sending',
        reason: null,
        segments,
        sendingNumberId: null,
        pacedUntil: null,
        // Kept past the attempt: the settings number's filtered sends are counted by it (deliverability/).
        fromNumber: sender.from,
        ...attempt(sender.from),
      });
      // biome-ignore lint/style/noNonNullAssertion: the gate allowed a phone channel, which it refuses (NO_ADDRESS) for a lead without a phone
      return { kind: 'send', message, to: lead.phone!, from: sender.from };
    }
    await setMessageStatus(trx, organizationId, message.id, {
      status: 'sending',
      reason: null,
      segments,
      sendingNumberId: sender.numberId,
      pacedUntil: sender.slot.toISOString(),
      pacedSince: sender.since.toISOString(),
      fromNumber: null,
      ...attempt(sender.from),
    });
    // biome-ignore lint/style/noNonNullAssertion: the gate allowed a phone channel, which it refuses (NO_ADDRESS) for a lead without a phone
    return { kind: 'send', message, to: lead.phone!, from: sender.from, departAt: sender.departAt };
  });
}

/**
 * A message whose provider call has no recorded outcome, under the lead's
 * lock and the job's fence: `in_doubt`, never sent blind. When the provider
 * can be asked the job reconciles it (RECONCILING); when it cannot (SMTP, a
 * call) or the recipient's address is gone, it is left for an operator.
 */
async function suspect(
  trx: Db,
  organizationId: string,
  message: MessageRow,
  lead: LeadRow,
  adapter: ChannelAdapter,
): Promise<Step> {
  const to = message.channel === 'email' ? lead.email : lead.phone;
  if (adapter.inDoubt === 'operator' || !adapter.find || !to) {
    const why =
      adapter.inDoubt === 'operator'
        ? `${adapter.name} cannot be asked whether it took it`
        : 'the lead has no address to look it up by';
    await setMessageStatus(trx, organizationId, message.id, {
      status: IN_DOUBT,
      code: NEEDS_OPERATOR,
      reason: `in doubt: the send began at ${message.attempt_at} and its outcome is unknown; ${why}. An operator resolves it (docs/operations.md)`,
    });
    return { kind: 'blocked' };
  }
  if (message.status !== IN_DOUBT) {
    await setMessageStatus(trx, organizationId, message.id, {
      status: IN_DOUBT,
      code: RECONCILING,
      reason: `in doubt: the send began at ${message.attempt_at} and its outcome is unknown; asking ${adapter.name} before anything is sent again`,
    });
  }
  return { kind: 'doubt', message, to };
}

/**
 * The gate once more, for a send held for its departure, under the lead's
 * lock: still `sending` (nothing took it back) and still allowed, with the
 * external verdict already given. Blocked or waiting is recorded as the first
 * judgement would have; the slot it held is simply spent.
 */
async function judgeAgain(
  deps: Deps,
  job: ClaimedJob & { payload: SendMessagePayload },
  external: ExternalVerdict | undefined,
): Promise<Step> {
  const organizationId = job.organizationId;
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx): Promise<Step> => {
    const lead = await lockLeadOfMessage(trx, organizationId, job.payload.messageId);
    if (!lead) return { kind: 'skip' };
    const message = await findMessage(trx, organizationId, job.payload.messageId);
    if (!message || message.status !== 'sending') return { kind: 'skip' };
    const decision = await askGate(
      trx,
      deps,
      organizationId,
      lead,
      message,
      job.payload,
      await readSettings(trx, organizationId),
      now,
      external,
    );
    // biome-ignore lint/style/noNonNullAssertion: the gate allowed a phone channel, which it refuses (NO_ADDRESS) for a lead without a phone
    if (decision.kind === 'allowed') return { kind: 'send', message, to: lead.phone!, from: null };
    // An External Compliance Check turned on during the hold: the send goes back to be judged with it.
    if (decision.kind === 'ask_external')
      return { kind: 'wait', until: now, reason: 'asking the external compliance check' };
    await record(trx, organizationId, message.id, decision);
    return decision.kind === 'blocked' ? { kind: 'blocked' } : decision;
  });
}

async function record(
  trx: Db,
  organizationId: string,
  messageId: string,
  decision: Exclude<GateDecision, { kind: 'ask_external' }>,
): Promise<void> {
  // Either way no provider call follows: an attempt recorded before a departure's hold is withdrawn.
  const none = { attemptAt: null, attemptFrom: null };
  if (decision.kind === 'blocked')
    await setMessageStatus(trx, organizationId, messageId, {
      status: 'blocked',
      code: decision.code,
      reason: decision.reason,
      ...none,
    });
  else if (decision.kind === 'wait') {
    // A pacing slot is not kept across a wait for contact hours: the send reserves anew when the window opens.
    await setMessageStatus(trx, organizationId, messageId, {
      status: 'scheduled',
      code: decision.code,
      reason: decision.reason,
      scheduledAt: decision.until.toISOString(),
      pacedUntil: null,
      pacedSince: null,
      ...none,
    });
  } else await setMessageStatus(trx, organizationId, messageId, { status: 'sending', reason: null });
}

/**
 * The 'message.send' job: sends one recorded outbound message, and is the only
 * code that calls a channel adapter. The gate is asked when the message is
 * actually handed to the provider; when the organization has an External
 * Compliance Check, it is asked outside any lock and the gate runs again with
 * its verdict. Idempotent: a message already sent or blocked is left alone
 * when the job runs again.
 */
export async function sendRecordedMessage(
  deps: Deps,
  job: ClaimedJob & { payload: SendMessagePayload },
  lastAttempt: boolean,
  /**
   * How a voice message is spoken on a live call when Twilio is configured
   * (given by the worker's catalog: channels/ does not place calls). Decided
   * from the message this job reads anyway, so an SMS or email send reads it once.
   */
  byCall?: (payload: SendMessagePayload) => Promise<JobOutcome>,
): Promise<JobOutcome> {
  const organizationId = job.organizationId;
  let step = await judge(deps, job, job.payload, undefined, byCall !== undefined);
  if (step.kind === 'call' && byCall) return byCall(job.payload);
  if (step.kind === 'doubt') {
    // Sent after all (adopted), left for an operator, or to be retried: nothing more now.
    if ((await reconcile(deps, job, step.message, step.to, lastAttempt)) === 'settled') return { kind: 'done' };
    // The provider holds no such send: it is judged afresh, as any send.
    step = await judge(deps, job, job.payload);
    if (step.kind === 'doubt') throw new Error('a reconciled send was found in doubt again');
  }
  let external: ExternalVerdict | undefined;
  if (step.kind === 'ask_external') {
    const verdict = await askExternalCheck(deps, organizationId, step.message);
    external = verdict;
    step = await judge(deps, job, job.payload, verdict);
    if (step.kind === 'ask_external') throw new Error('external compliance check was not consulted');
  }
  // The rest of a campaign on a refused settings number would fail the same way: it pauses (after the commit).
  if (step.kind === 'blocked' && step.pause)
    await pauseForUnusableSender(deps, organizationId, step.pause.campaignId, step.pause);
  if (step.kind === 'skip' || step.kind === 'blocked' || step.kind === 'doubt' || step.kind === 'call')
    return { kind: 'done' };
  // A send waiting for its sending slot must run at the slot, not some time after: a punctual job (jobs.repository.ts claimJobs).
  if (step.kind === 'wait')
    return { kind: 'defer', until: step.until, reason: step.reason, punctual: step.punctual === true };

  const { message } = step;
  // A pool number's send leaves at its departure (its slot a moment away, or behind the number's previous
  // departure: at most a second, sending-numbers/pacing.ts), held here after the commit: no lock is held meanwhile.
  const hold = step.departAt ? step.departAt.getTime() - deps.clock.now().getTime() : 0;
  if (hold > 0) {
    deps.log.debug({ messageId: message.id, holdMs: Math.round(hold) }, 'message.send held for its departure');
    await sleep(hold);
    // The gate judged before the hold: a STOP, a DNC entry or the end of contact hours that came meanwhile is heard now.
    const after = await judgeAgain(deps, job, external);
    if (after.kind === 'skip' || after.kind === 'blocked') return { kind: 'done' };
    if (after.kind === 'wait') return { kind: 'defer', until: after.until, reason: after.reason };
  }
  const adapter = adapterFor(deps, message.channel);
  let providerMessageId: string | null = null;
  try {
    ({ providerMessageId } = await adapter.send({
      organizationId,
      messageId: message.id,
      leadId: message.lead_id,
      channel: message.channel,
      to: step.to,
      from: step.from,
      text: message.text,
    }));
  } catch (err) {
    return failedSend(deps, job, message, step.to, step.from, adapter, err, lastAttempt);
  }
  const at = deps.clock.now().toISOString();
  // One completion: the outcome and the job's end commit together (the job first: the lock order of judge,
  // the job's row then the lead's). A lapsed lease leaves the job to its new holder, which finds the message sent.
  await deps.db.transaction().execute(async (trx) => {
    await finishJob(trx, job, at);
    await recordSent(trx, organizationId, message, { providerMessageId, status: 'sent', reason: null }, at);
  });
  return { kind: 'done', finished: true };
}

/**
 * A provider call that failed, by what the failure says (providers/channel-adapter.ts
 * SendOutcome): a refusal is final at once; an outcome unknown is never
 * retried blind (kept as an attempt, so the retry reconciles first; on the
 * last attempt reconciled now; left for an operator where the provider
 * cannot be asked); a send the provider never took is retried, or failed
 * when the retries are spent. The provider's error code decides the outcome
 * by its class (deliverability/error-codes.ts, in the adapter), and a final
 * failure is recorded with it: message.failed and the class's action.
 */
async function failedSend(
  deps: Deps,
  job: ClaimedJob,
  message: MessageRow,
  to: string,
  sender: string | null,
  adapter: ChannelAdapter,
  err: unknown,
  lastAttempt: boolean,
): Promise<JobOutcome> {
  const organizationId = message.organization_id;
  const text = err instanceof Error ? err.message : String(err);
  const outcome = err instanceof SendError ? err.outcome : 'unknown';
  const none = { attemptAt: null, attemptFrom: null };
  const providerError = err instanceof SendError ? err.providerError : undefined;
  const from = message.channel === 'email' ? null : sender;
  if (outcome === 'refused') {
    // Recorded with its error code and class, message.failed, and what the class calls for (deliverability/).
    await recordSendFailure(deps, organizationId, message.id, {
      reason: `refused by the provider: ${text}`,
      error: providerError,
      to,
      from,
    });
    return { kind: 'done' };
  }
  if (outcome === 'unknown' && adapter.inDoubt === 'ask') {
    if (!lastAttempt) throw err;
    // No retry left to reconcile on: asked now. Found, it is adopted; none, the send failed; the provider unreadable, an operator decides.
    await setMessageStatus(deps.db, organizationId, message.id, {
      status: IN_DOUBT,
      code: RECONCILING,
      reason: `in doubt: ${text}; asking ${adapter.name}`.slice(0, 500),
    });
    const current = await findMessage(deps.db, organizationId, message.id);
    if (current && (await reconcile(deps, job, current, to, true)) === 'resend') {
      await recordSendFailure(deps, organizationId, message.id, {
        reason: `provider error: ${text}`,
        error: providerError,
        to,
        from,
      });
    }
    return { kind: 'done' };
  }
  if (outcome === 'unknown' && adapter.inDoubt === 'operator') {
    await setMessageStatus(deps.db, organizationId, message.id, {
      status: IN_DOUBT,
      code: NEEDS_OPERATOR,
      reason:
        `in doubt: ${text}; ${adapter.name} cannot be asked whether it took it. An operator resolves it (docs/operations.md)`.slice(
          0,
          500,
        ),
    });
    return { kind: 'done' };
  }
  if (lastAttempt) {
    await recordSendFailure(deps, organizationId, message.id, {
      reason: `provider error: ${text}`,
      error: providerError,
      to,
      from,
    });
    return { kind: 'done' };
  }
  await setMessageStatus(deps.db, organizationId, message.id, { status: 'sending', reason: null, ...none });
  throw err;
}
