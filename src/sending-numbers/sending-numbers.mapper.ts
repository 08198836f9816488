import type { SendingNumberRow } from './sending-numbers.repository.js';
import type { SendingNumberView } from './sending-numbers.schemas.js';

/** The bucket's internals (next slot, day counter) are the send path's, not the client's. */
export function toSendingNumberView(row: SendingNumberRow): SendingNumberView {
  return {
    id: row.id,
    number: row.number,
    kind: row.kind,
    channel: row.channel,
    ratePerSecond: Number(row.rate_per_second),
    dailyCap: row.daily_cap === null ? null : Number(row.daily_cap),
    assignedLeads: Number(row.assigned_leads),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    unusableAt: row.unusable_at ?? null,
    unusableCode: row.unusable_code ?? null,
  };
}
