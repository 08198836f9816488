import type { Updateable } from 'kysely';
import type { LeadRow } from '../lead-records/leads.repository.js';
import type { LeadsTable } from '../platform/db/schema.js';
import type { CadenceState } from './cadence.js';
import type { FollowUpConfigInput, FollowUpView } from './followups.schemas.js';

/** The cadence as stored on the lead's row (leads.follow_up_*) and as the lead view shows it. */

export type CadenceColumns = Pick<
  LeadRow,
  'follow_up_config' | 'follow_up_step' | 'follow_up_due_at' | 'follow_up_generation' | 'follow_up_note'
>;

export function cadenceOf(lead: CadenceColumns): CadenceState {
  return {
    config: lead.follow_up_config ? (JSON.parse(lead.follow_up_config) as FollowUpConfigInput) : null,
    step: lead.follow_up_step === null ? null : Number(lead.follow_up_step),
    dueAt: lead.follow_up_due_at,
    generation: Number(lead.follow_up_generation ?? 0),
    note: lead.follow_up_note,
  };
}

export function columnsOf(state: CadenceState): Updateable<LeadsTable> {
  return {
    follow_up_config: state.config ? JSON.stringify(state.config) : null,
    follow_up_step: state.step,
    follow_up_due_at: state.dueAt,
    follow_up_generation: state.generation,
    follow_up_note: state.note,
  };
}

/** The lead view's follow-up fields (Parley's additions). */
export function followUpView(lead: CadenceColumns): FollowUpView {
  const s = cadenceOf(lead);
  return { followUpConfig: s.config, followUpStep: s.step, nextFollowUpAt: s.dueAt, followUpNote: s.note };
}
