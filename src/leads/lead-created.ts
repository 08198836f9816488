import { noteLeadsCreated } from '../analytics-records/recorder.repository.js';
import { emitEvents } from '../events/outbox.repository.js';
import { type LeadOrigin, leadCreatedEvent } from '../events/payloads.js';
import { assignOnCreation } from '../handoffs/handoffs.service.js';
import type { Db } from '../platform/db/schema.js';
import type { newLeadRow } from './new-lead.js';

/**
 * What every single new lead's insert brings with it, in its transaction:
 * `lead.created` (Parley's own event), round-robin assignment when the
 * organization assigns on creation, and its analytics row under its source.
 * An import does the same for a batch at once (imports/).
 */
export async function recordLeadCreated(
  trx: Db,
  organizationId: string,
  row: ReturnType<typeof newLeadRow>,
  origin: Exclude<LeadOrigin, { source: 'import' }>,
  at: string,
): Promise<void> {
  await emitEvents(trx, organizationId, at, [leadCreatedEvent(row as Parameters<typeof leadCreatedEvent>[0], origin)]);
  await assignOnCreation(trx, organizationId, row.id, new Date(at));
  await noteLeadsCreated(
    trx,
    organizationId,
    [{ id: row.id, customer_profile: row.customer_profile, created_at: at }],
    origin.source,
  );
}
