import { phonesOnDnc } from '../suppression-records/dnc.repository.js';
import type { LeadRow } from '../lead-records/leads.repository.js';
import { standingBlock } from '../messages/send.service.js';
import type { AddressDigests } from '../platform/address-digest.js';
import type { Db } from '../platform/db/schema.js';
import type { OrganizationSettings } from '../settings/settings.service.js';
import { channelStatus, CHANNELS } from '../lead-records/channels.js';
import { suppressedDigests } from '../suppression-records/suppressions.repository.js';

/** What the pre-screen reads of a lead: its addresses and its subscription states. */
export type ScreenedLead = Pick<LeadRow, 'id' | 'phone' | 'email' | 'sms_status' | 'voice_status' | 'email_status'>;

export interface StandingBlock {
  code: string;
  reason: string;
}

/**
 * Whether anything might stand against the lead: an unsubscribed or missing
 * channel on its row, an opt-out of one of its addresses, its phone on DNC.
 * Read for the whole batch in two statements. It may flag a lead the gate
 * would let through (an opt-out of another channel), never the reverse.
 */
async function flagged(
  db: Db,
  digests: AddressDigests,
  organizationId: string,
  leads: readonly ScreenedLead[],
): Promise<string[]> {
  // Each address hashed once (two digests: keyed and legacy): at 100k leads the hashing is seconds of CPU.
  const digestsOf = new Map<string, [string, string]>();
  for (const l of leads)
    for (const a of [l.phone, l.email])
      if (a && !digestsOf.has(a)) digestsOf.set(a, [digests.keyed(a), digests.legacy(a)]);
  const suppressed = await suppressedDigests(db, organizationId, [...digestsOf.values()].flat());
  const onDnc = await phonesOnDnc(
    db,
    organizationId,
    leads.flatMap((l) => (l.phone ? [l.phone] : [])),
  );
  const isSuppressed = (a: string | null) =>
    // biome-ignore lint/style/noNonNullAssertion: every non-empty phone and email of leads was put in digestsOf above
    !!a && suppressed.size > 0 && digestsOf.get(a)!.some((d) => suppressed.has(d));
  const out: string[] = [];
  for (const lead of leads) {
    const rowSays = (!lead.phone && !lead.email) || CHANNELS.some((c) => channelStatus(lead, c) === 'unsubscribed');
    if (rowSays || (lead.phone && onDnc.has(lead.phone)) || isSuppressed(lead.phone) || isSuppressed(lead.email))
      out.push(lead.id);
  }
  return out;
}

/**
 * What stands against each lead of a batch until someone changes it (the
 * gate's standing checks: messages/send.service.ts standingBlock), for
 * enrollment and for each run of a campaign. The batch is pre-screened in two
 * statements; only a flagged lead, read whole by `whole`, is put to the
 * gate's checks, which decide the code and reason. A lead missing from
 * `whole` (erased meanwhile) has no block here. The gate still judges every
 * send when it goes out.
 */
export async function standingBlocks(
  db: Db,
  digests: AddressDigests,
  organizationId: string,
  leads: readonly ScreenedLead[],
  settings: OrganizationSettings,
  now: Date,
  whole: (ids: string[]) => Promise<LeadRow[]>,
): Promise<Map<string, StandingBlock>> {
  const out = new Map<string, StandingBlock>();
  const suspects = await flagged(db, digests, organizationId, leads);
  if (suspects.length === 0) return out;
  for (const lead of await whole(suspects)) {
    const block = await standingBlock(db, digests, organizationId, lead, settings, now);
    if (block) out.set(lead.id, block);
  }
  return out;
}
