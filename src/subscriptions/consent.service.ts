import { Readable } from 'node:stream';
import { requireLead } from '../lead-records/leads.repository.js';
import { csvLine } from '../platform/csv.js';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { decodeCursor, page } from '../platform/http/pagination.js';
import { instantOf } from '../platform/instant.js';
import { actorLabels, consentBetween, listConsent, type ConsentRow } from './consent.repository.js';

export interface ConsentView {
  id: string;
  leadId: string | null;
  channel: string;
  action: 'optOut' | 'optIn';
  source: string;
  reason: string | null;
  actor: string | null;
  inboundMessageId: string | null;
  addressDigest: string;
  createdAt: string;
}

export const toConsentView = (r: ConsentRow): ConsentView => ({
  id: r.id,
  leadId: r.lead_id,
  channel: r.channel,
  action: r.action === 'opt_out' ? 'optOut' : 'optIn',
  source: r.source,
  reason: r.reason,
  actor: r.actor,
  inboundMessageId: r.inbound_message_id,
  addressDigest: r.address_digest,
  createdAt: r.created_at,
});

export async function leadConsent(
  deps: Deps,
  organizationId: string,
  leadId: string,
  q: { limit?: number; nextToken?: string },
) {
  await requireLead(deps.db, organizationId, leadId);
  const limit = q.limit ?? 100;
  const rows = await listConsent(deps.db, organizationId, leadId, decodeCursor(q.nextToken), limit);
  const { items, nextToken } = page(rows, limit);
  const labels = await actorLabels(
    deps.db,
    organizationId,
    items.map((r) => r.actor),
  );
  return {
    records: items.map((r) => ({ ...toConsentView(r), actorLabel: (r.actor && labels.get(r.actor)) ?? null })),
    nextToken,
  };
}

const COLUMNS = [
  'id',
  'leadId',
  'channel',
  'action',
  'source',
  'reason',
  'actor',
  'inboundMessageId',
  'addressDigest',
  'createdAt',
] as const;

/**
 * The organization's consent records in [from, to) as CSV, oldest first,
 * streamed a page at a time: memory stays flat whatever the range holds.
 */
export function exportConsent(deps: Deps, organizationId: string, fromIso: string, toIso: string): Readable {
  const invalid = (name: string) => () => new DomainError('invalid_date', { field: name });
  const from = instantOf(fromIso, invalid('from'));
  const to = instantOf(toIso, invalid('to'));
  if (!(to.getTime() > from.getTime()))
    throw new DomainError('invalid_range', { detail: 'to must be later than from' });
  async function* lines(): AsyncGenerator<string> {
    yield csvLine(COLUMNS);
    let after: string | undefined;
    for (;;) {
      const rows = await consentBetween(deps.db, organizationId, from.toISOString(), to.toISOString(), after, 500);
      for (const r of rows) {
        const v = toConsentView(r);
        yield csvLine(COLUMNS.map((c) => v[c]));
      }
      if (rows.length < 500) return;
      // biome-ignore lint/style/noNonNullAssertion: rows.length is 500 here (a shorter page returned above)
      after = rows[rows.length - 1]!.id;
    }
  }
  return Readable.from(lines());
}
