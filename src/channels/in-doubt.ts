import { emitFannedOut } from '../webhooks/dispatcher.js';
import { messageSentEvent, outboundEmailSubject } from '../events/payloads.js';
import { followUpAfterSend } from '../followups/followups.service.js';
import { enqueueJob, holdsLease, latestSendPayload } from '../jobs/jobs.repository.js';
import type { ClaimedJob } from '../jobs/names.js';
import { lockLeadOfMessage, requireLead, updateLead } from '../lead-records/leads.repository.js';
import {
  findMessage,
  providerIdsHeldElsewhere,
  setMessageStatus,
  type MessageRow,
} from '../messages/messages.repository.js';
import { findOrganization } from '../organizations/organizations.repository.js';
import type { Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { DomainError, NotFound } from '../platform/errors.js';
import type { FoundSend } from '../providers/channel-adapter.js';
import { adapterFor } from './registry.js';

/**
 * A send whose outcome is unknown: the process died, or the provider's answer
 * was lost, after the provider was called. It is never sent again blind. The
 * status says so; the code says who acts next: the worker, asking the
 * provider (RECONCILING), or an operator (NEEDS_OPERATOR).
 */
export const IN_DOUBT = 'in_doubt';
export const RECONCILING = 'RECONCILING';
export const NEEDS_OPERATOR = 'NEEDS_OPERATOR';

const HOW_TO_RESOLVE = 'An operator resolves it (docs/operations.md)';

export interface SentOutcome {
  providerMessageId: string | null;
  /** sent, or the provider's later state of a send found by reconciliation (delivered, undelivered, failed). */
  status: string;
  reason: string | null;
}

/** A send the provider took, recorded once: the message, the lead's activity, its follow-up cadence and `message.sent`. */
export async function recordSent(
  trx: Db,
  organizationId: string,
  message: MessageRow,
  outcome: SentOutcome,
  at: string,
): Promise<void> {
  // The lead's lock before the message's row, in the order an erasure takes them (the lead, then its messages):
  // the other order deadlocked with an erasure on PostgreSQL. A lead erased meanwhile took the message with it.
  const lead = await lockLeadOfMessage(trx, organizationId, message.id);
  if (!lead) return;
  await setMessageStatus(trx, organizationId, message.id, { ...outcome, attemptAt: null, attemptFrom: null, at });
  await updateLead(trx, organizationId, lead.id, { last_activity_at: at });
  // The wait for a reply starts again from this message (followups/): the cadence's next step is due its hours from now.
  await followUpAfterSend(trx, organizationId, message, new Date(at), lead);
  const subject =
    message.channel === 'email' ? outboundEmailSubject((await findOrganization(trx, organizationId))?.name) : null;
  // Fanned out here: the worker that recorded it has nothing left to do with it (no wake, no empty tick).
  await emitFannedOut(trx, organizationId, at, [messageSentEvent(lead, message, subject)]);
}

/**
 * Settles a send in doubt by asking its provider (the adapter's `find`) what
 * it holds of the attempt: a send it took is adopted (its id and state, no
 * second call); none means the attempt never reached it, and the message goes
 * back to `sending`, to be judged and sent as any send ('resend'). A provider
 * that cannot be asked is asked again on the job's retry schedule (the error
 * is thrown); when the retries are spent the message is left for an operator.
 */
export async function reconcile(
  deps: Deps,
  job: ClaimedJob,
  message: MessageRow,
  to: string,
  lastAttempt: boolean,
): Promise<'settled' | 'resend'> {
  const organizationId = job.organizationId;
  const adapter = adapterFor(deps, message.channel);
  let found: FoundSend[] = [];
  // Without a sender the provider was never called (the adapter refuses first): nothing to look for.
  if (message.attempt_from !== null) {
    try {
      // biome-ignore lint/style/noNonNullAssertion: outbound.ts calls reconcile only after suspect() checked adapter.find, or for an 'ask' adapter (Twilio's, which has find)
      found = await adapter.find!(
        {
          organizationId,
          messageId: message.id,
          leadId: message.lead_id,
          channel: message.channel,
          to,
          from: message.attempt_from,
          text: message.text,
        },
        // biome-ignore lint/style/noNonNullAssertion: attempt_from is set (checked above) only together with attempt_at
        new Date(message.attempt_at!),
      );
    } catch (err) {
      if (!lastAttempt) throw err;
      const reason = `in doubt: the send began at ${message.attempt_at}; ${adapter.name} could not be asked whether it took it (${(err as Error).message}). ${HOW_TO_RESOLVE}`;
      await settleFenced(deps, job, message.id, (trx) =>
        setMessageStatus(trx, organizationId, message.id, {
          status: IN_DOUBT,
          code: NEEDS_OPERATOR,
          reason: reason.slice(0, 500),
        }),
      );
      return 'settled';
    }
  }
  const at = deps.clock.now().toISOString();
  let result: 'settled' | 'resend' = 'settled';
  await settleFenced(deps, job, message.id, async (trx, current) => {
    // Another message may hold a candidate already (the same text sent before): it is not this attempt's.
    const held = await providerIdsHeldElsewhere(
      trx,
      organizationId,
      message.id,
      found.map((f) => f.providerMessageId),
    );
    const mine = found.find((f) => !held.has(f.providerMessageId));
    if (mine) {
      await recordSent(
        trx,
        organizationId,
        current,
        { ...mine, reason: `found at ${adapter.name} after its answer was lost: not sent again` },
        at,
      );
      return;
    }
    await setMessageStatus(trx, organizationId, message.id, {
      status: 'sending',
      code: null,
      reason: null,
      attemptAt: null,
      attemptFrom: null,
    });
    result = 'resend';
  });
  return result;
}

/** Writes a reconciliation's result under the lead's lock, only while this claim holds the job and the message is still being reconciled. */
async function settleFenced(
  deps: Deps,
  job: ClaimedJob,
  messageId: string,
  write: (trx: Db, current: MessageRow) => Promise<unknown>,
): Promise<void> {
  const now = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    if (!(await holdsLease(trx, job, now))) return;
    await lockLeadOfMessage(trx, job.organizationId, messageId);
    const current = await findMessage(trx, job.organizationId, messageId);
    if (current?.status === IN_DOUBT && current.status_code === RECONCILING) await write(trx, current);
  });
}

/**
 * An operator's decision on a message left in doubt: `sent` (the lead got it,
 * e.g. seen in the provider's console or the lead's mailbox) records it sent,
 * as a send would; `resend` sends it once more, through the gate again, with
 * the flags it was first sent with. Only a message left for an operator
 * (NEEDS_OPERATOR) can be resolved: one the worker is still reconciling, or
 * any other, answers 409 and changes nothing.
 */
export async function resolveInDoubt(
  deps: Deps,
  organizationId: string,
  leadId: string,
  messageId: string,
  outcome: 'sent' | 'resend',
): Promise<MessageRow> {
  await requireLead(deps.db, organizationId, leadId);
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (trx) => {
    await lockLeadOfMessage(trx, organizationId, messageId);
    const message = await findMessage(trx, organizationId, messageId);
    if (!message || message.lead_id !== leadId) throw new NotFound('Message', 'id', messageId);
    if (message.status !== IN_DOUBT || message.status_code !== NEEDS_OPERATOR) {
      const status = `${message.status}${message.status_code ? ` ${message.status_code}` : ''}`;
      throw new DomainError('not_in_doubt', { id: messageId, status });
    }
    if (outcome === 'sent') {
      await recordSent(
        trx,
        organizationId,
        message,
        { providerMessageId: message.provider_message_id, status: 'sent', reason: 'marked sent by an operator' },
        now.toISOString(),
      );
    } else {
      const payload = (await latestSendPayload(trx, organizationId, messageId)) ?? { messageId, sendWhenOff: false };
      await setMessageStatus(trx, organizationId, messageId, {
        status: 'scheduled',
        code: null,
        reason: 'to be sent again, as an operator decided',
        scheduledAt: now.toISOString(),
        attemptAt: null,
        attemptFrom: null,
      });
      await enqueueJob(trx, organizationId, 'message.send', { ...payload, messageId }, now, now.toISOString());
    }
    // biome-ignore lint/style/noNonNullAssertion: the message was just written (or found) in this transaction
    return (await findMessage(trx, organizationId, messageId))!;
  });
}
