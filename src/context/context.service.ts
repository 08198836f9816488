import type { Updateable } from 'kysely';
import { emitEvents } from '../events/outbox.repository.js';
import { mergeLeadInfo } from '../lead-records/additional-info.js';
import { updateLead } from '../lead-records/leads.repository.js';
import { requireLead } from '../lead-records/leads.repository.js';
import { isoNow } from '../platform/clock.js';
import type { LeadsTable } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import * as repo from './context.repository.js';
import { AT_LEAST_ONE, type AddContextInput, type LeadNoteView } from './context.schemas.js';

function checkInput(input: AddContextInput): void {
  if (input.context === undefined && input.additionalInfo === undefined && input.command === undefined) {
    throw new DomainError('invalid_request', { detail: AT_LEAST_ONE });
  }
  // A blank note or command would reach the AI as an empty instruction; refuse it rather than store noise.
  for (const field of ['context', 'command'] as const) {
    if (input[field] !== undefined && input[field].trim() === '')
      throw new DomainError('invalid_request', { detail: `${field} must not be blank` });
  }
}

/**
 * Everything in one transaction under the lead's lock: the notes, the merged
 * additionalInfo and its outbox event commit together or not at all, and the
 * AI's next turn sees either the whole request or none of it.
 */
export async function addContext(
  deps: Deps,
  organizationId: string,
  leadId: string,
  input: AddContextInput,
): Promise<void> {
  checkInput(input);
  await deps.db.transaction().execute(async (trx) => {
    const lead = await requireLead(trx, organizationId, leadId, true);
    const at = isoNow(deps.clock);
    // Context before command: ids are time-ordered, so the AI reads the facts before the instruction.
    const notes = (['context', 'command'] as const).flatMap((kind) => {
      const text = input[kind];
      return text === undefined
        ? []
        : [{ id: newId(), lead_id: leadId, kind, text, created_at: at, consumed_at: null }];
    });
    await repo.insertNotes(trx, organizationId, notes);
    const patch: Updateable<LeadsTable> = { updated_at: at };
    if (input.additionalInfo !== undefined) {
      const { additionalInfo, events } = mergeLeadInfo(lead, input.additionalInfo);
      patch.additional_info = additionalInfo;
      await emitEvents(trx, organizationId, at, events);
    }
    await updateLead(trx, organizationId, leadId, patch);
  });
}

export async function listContext(deps: Deps, organizationId: string, leadId: string): Promise<LeadNoteView[]> {
  await requireLead(deps.db, organizationId, leadId);
  const rows = await repo.listNotes(deps.db, organizationId, leadId);
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    text: r.text,
    createdAt: r.created_at,
    consumedAt: r.consumed_at,
  }));
}
