import type { AddressDigests } from '../platform/address-digest.js';
import type { Db } from '../platform/db/schema.js';
import type { ChannelName } from './channels.js';

/**
 * Opt-outs belong to the address, organization-wide: a row per (channel,
 * digest of the address) holds for every lead with that address, now or later,
 * and outlives an erased lead. Addresses are kept only as keyed digests
 * (platform/address-digest.ts); rows written before keying are still matched.
 */
export interface Suppression {
  channel: ChannelName;
  digest: string;
  source: string;
}

/** Records opt-outs, one statement for all the channels of a change (at least one entry); a known address takes the given source. */
export function suppressQuery(db: Db, organizationId: string, entries: Suppression[], at: string) {
  return db
    .insertInto('suppressions')
    .values(entries.map((e) => ({ organization_id: organizationId, channel: e.channel, address_digest: e.digest, source: e.source, created_at: at, digest_kind: 'hmac' as const })))
    .onConflict((oc) => oc.columns(['organization_id', 'channel', 'address_digest']).doUpdateSet((eb) => ({ source: eb.ref('excluded.source') })));
}

/** Lifts an address's opt-out on a channel (both its keyed and any legacy digest). */
export async function unsuppress(db: Db, organizationId: string, channel: ChannelName, address: string, digests: AddressDigests): Promise<void> {
  await db
    .deleteFrom('suppressions')
    .where('organization_id', '=', organizationId)
    .where('channel', '=', channel)
    .where('address_digest', 'in', [digests.keyed(address), digests.legacy(address)])
    .execute();
}

/** Channel -> opt-out source of the addresses a lead holds (phone: sms and voice; email: email). */
export async function suppressionsFor(db: Db, organizationId: string, digests: AddressDigests, phone: string | null, email: string | null): Promise<Map<ChannelName, string>> {
  const out = new Map<ChannelName, string>();
  const of = (address: string | null) => (address ? [digests.keyed(address), digests.legacy(address)] : []);
  const phoneDigests = of(phone);
  const emailDigests = of(email);
  if (phoneDigests.length + emailDigests.length === 0) return out;
  const rows = await db
    .selectFrom('suppressions')
    .select(['channel', 'address_digest', 'source'])
    .where('organization_id', '=', organizationId)
    .where('address_digest', 'in', [...phoneDigests, ...emailDigests])
    .execute();
  for (const r of rows) {
    const matches = r.channel === 'email' ? emailDigests.includes(r.address_digest) : phoneDigests.includes(r.address_digest);
    if (matches) out.set(r.channel, r.source);
  }
  return out;
}

/** The opt-out source of one address on one channel (keyed or legacy digest), or undefined: what the gate asks at send time. */
export async function suppressionOf(db: Db, organizationId: string, digests: AddressDigests, channel: ChannelName, address: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('suppressions')
    .select('source')
    .where('organization_id', '=', organizationId)
    .where('channel', '=', channel)
    .where('address_digest', 'in', [digests.keyed(address), digests.legacy(address)])
    .executeTakeFirst();
  return row?.source;
}

/** Which of these address digests (keyed or legacy) are suppressed on any channel: a batch's pre-screen, one statement. */
export async function suppressedDigests(db: Db, organizationId: string, addressDigests: readonly string[]): Promise<Set<string>> {
  if (addressDigests.length === 0) return new Set();
  const rows = await db.selectFrom('suppressions').select('address_digest')
    .where('organization_id', '=', organizationId).where('address_digest', 'in', [...addressDigests]).execute();
  return new Set(rows.map((r) => r.address_digest));
}
