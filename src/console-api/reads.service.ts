import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { isoNow } from '../platform/clock.js';
import { requireLead } from '../lead-records/leads.repository.js';
import { markRead, readsOf } from './reads.repository.js';
import type { ConsoleSession } from '../users/sessions.service.js';

const MAX_LEADS = 500;

/** When this user last read each of these leads; leads never read (or of another organization) are absent. */
export async function readState(
  deps: Deps,
  session: ConsoleSession,
  leadIdList: string,
): Promise<Record<string, string>> {
  const ids = [
    ...new Set(
      leadIdList
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (ids.length > MAX_LEADS)
    throw new DomainError('bad_request', { detail: `leadIds must name at most ${MAX_LEADS} leads.` });
  return readsOf(deps.db, session.organizationId, session.userId, ids);
}

/** Marks the lead read now; a lead of another organization is a 404, as everywhere. */
export async function markLeadRead(deps: Deps, session: ConsoleSession, leadId: string): Promise<void> {
  await requireLead(deps.db, session.organizationId, leadId);
  await markRead(deps.db, session.organizationId, session.userId, leadId, isoNow(deps.clock));
}
