import type { Updateable } from 'kysely';
import { enqueueJob } from '../jobs/jobs.repository.js';
import { findLead, updateLead, type LeadRow } from '../lead-records/leads.repository.js';
import type { MessageRow } from '../messages/messages.repository.js';
import type { Db, LeadsTable } from '../platform/db/schema.js';
import { afterReply, afterSent, applyUpdate, stop, type CadenceState } from './cadence.js';
import { LONG_TERM, STOPPED, type FollowUpUpdate } from './followups.schemas.js';
import { blockQueuedFollowUps } from './followups.repository.js';
import { cadenceOf, columnsOf, type CadenceColumns } from './followups.mapper.js';

/**
 * The follow-up cadence on a lead: the hooks the rest of Parley calls (update
 * lead, a message sent, a reply received, an opt-out), each in the caller's
 * transaction under the lead's lock. The rules are cadence.ts; here the state
 * is read from and written to the lead's row, and every due step becomes a
 * durable `followup.send` job carrying the generation it was made for.
 */

/** Schedules the job of a state that has a due step it did not have before (a new generation). */
async function scheduleIfDue(
  trx: Db,
  organizationId: string,
  leadId: string,
  before: CadenceState,
  after: CadenceState,
  now: Date,
): Promise<void> {
  if (after.dueAt === null || after.generation === before.generation) return;
  await enqueueJob(
    trx,
    organizationId,
    'followup.send',
    { leadId, generation: after.generation },
    new Date(after.dueAt),
    now.toISOString(),
  );
}

/**
 * Update lead's followUpConfig / followUpStep, inside its transaction with the
 * lead locked: the columns to write with the rest of the update (nothing when
 * neither field was sent), the job of a newly due step already enqueued.
 * Throws a BadRequest (and the transaction writes nothing) when the update
 * cannot apply.
 */
export async function planFollowUpUpdate(
  trx: Db,
  lead: LeadRow,
  update: FollowUpUpdate,
  now: Date,
): Promise<Updateable<LeadsTable>> {
  if (update.followUpConfig === undefined && update.followUpStep === undefined) return {};
  const before = cadenceOf(lead);
  const after = applyUpdate(before, update, now);
  await scheduleIfDue(trx, lead.organization_id, lead.id, before, after, now);
  if (after.step === STOPPED || after.step === LONG_TERM || (after.config === null && before.config !== null)) {
    await blockQueuedFollowUps(
      trx,
      lead.organization_id,
      lead.id,
      'follow-ups were stopped before it was sent',
      now.toISOString(),
    );
  }
  return columnsOf(after);
}

/** Applies a rule to the lead's cadence under its lock; answers the state before (undefined: no lead), so callers can skip work for leads without one. */
async function transition(
  trx: Db,
  organizationId: string,
  leadId: string,
  now: Date,
  rule: (s: CadenceState) => CadenceState,
  /** The lead's row as the caller read it under its lock in this transaction, cadence columns untouched since. */
  locked?: LeadRow,
): Promise<CadenceState | undefined> {
  const lead = locked ?? (await findLead(trx, organizationId, leadId, true));
  if (!lead) return undefined;
  const before = cadenceOf(lead);
  const after = rule(before);
  if (after === before) return before;
  await updateLead(trx, organizationId, leadId, columnsOf(after));
  await scheduleIfDue(trx, organizationId, leadId, before, after, now);
  return before;
}

/** What the cadence reads of a message that went out. */
export type SentFacts = Pick<
  MessageRow,
  'lead_id' | 'direction' | 'purpose' | 'is_ai_generated' | 'is_follow_up' | 'follow_up_step' | 'schedule_follow_ups'
>;

/**
 * channels/outbound.ts, in the transaction that records a message as sent:
 * the wait for a reply starts again. The AI's messages and sends that asked
 * for follow-ups (sendMessage `scheduleFollowUps`) arm the current step; a
 * follow-up's own message lets the next step follow it.
 */
export async function followUpAfterSend(
  trx: Db,
  organizationId: string,
  message: SentFacts,
  sentAt: Date,
  /** The lead's row, read under its lock in this transaction: saves reading it again. */
  locked?: LeadRow,
): Promise<void> {
  if (message.direction !== 'outbound' || message.purpose !== 'conversation') return;
  const step = message.is_follow_up === 1 && message.follow_up_step !== null ? Number(message.follow_up_step) : null;
  const arms = message.is_ai_generated === 1 || message.schedule_follow_ups === 1;
  await transition(
    trx,
    organizationId,
    message.lead_id,
    sentAt,
    (s) => afterSent(s, { followUpStep: step, arms }, sentAt),
    locked,
  );
}

/** inbound/inbound.ts, in the transaction that stores the lead's message: nothing more goes out unanswered. */
export async function followUpAfterReply(
  trx: Db,
  organizationId: string,
  leadId: string,
  at: Date,
  /** The lead's row, read under its lock in this transaction: saves reading it again. */
  locked?: LeadRow,
): Promise<void> {
  const before = await transition(trx, organizationId, leadId, at, (s) => afterReply(s, at), locked);
  if (!before || (before.config === null && before.step === null)) return; // never had a cadence: no follow-up can be queued
  // A step still waiting to go out (e.g. for contact hours) would now follow up on an answered message.
  await blockQueuedFollowUps(trx, organizationId, leadId, 'the lead replied before it was sent', at.toISOString());
}

/** The columns that stop the lead's cadence, for a caller that writes the lead itself (an opt-out); {} when there is nothing to stop. */
export function stopFollowUpsColumns(lead: CadenceColumns, why: string): Updateable<LeadsTable> {
  const before = cadenceOf(lead);
  const after = stop(before, why);
  return after === before ? {} : columnsOf(after);
}
