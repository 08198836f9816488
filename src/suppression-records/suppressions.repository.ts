import type { AddressDigests } from '../platform/address-digest.js';
import { inArray } from '../platform/db/arrays.js';
import type { Db } from '../platform/db/schema.js';
import { CHANNELS, type ChannelName } from '../lead-records/channels.js';

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
    .values(
      entries.map((e) => ({
        organization_id: organizationId,
        channel: e.channel,
        address_digest: e.digest,
        source: e.source,
        created_at: at,
        digest_kind: 'hmac' as const,
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'channel', 'address_digest'])
        .doUpdateSet((eb) => ({ source: eb.ref('excluded.source') })),
    );
}

/** The source of an address's opt-out on a channel, under any of its digests, if it has one. */
export async function suppressionSource(
  db: Db,
  organizationId: string,
  channel: ChannelName,
  digests: readonly string[],
): Promise<string | undefined> {
  const row = await db
    .selectFrom('suppressions')
    .select('source')
    .where('organization_id', '=', organizationId)
    .where('channel', '=', channel)
    .where('address_digest', 'in', digests)
    .executeTakeFirst();
  return row?.source;
}

/** Lifts an address's opt-out on a channel (both its keyed and any legacy digest). */
export async function unsuppress(
  db: Db,
  organizationId: string,
  channel: ChannelName,
  address: string,
  digests: AddressDigests,
): Promise<void> {
  await db
    .deleteFrom('suppressions')
    .where('organization_id', '=', organizationId)
    .where('channel', '=', channel)
    .where('address_digest', 'in', [digests.keyed(address), digests.legacy(address)])
    .execute();
}

/** Leads per lookup from which suppressionsForMany first asks whether the organization has legacy digests at all. */
const LEGACY_PROBE_FROM = 50;

/** Whether any opt-out of the organization is still an unkeyed digest (an erased lead's, from before 0007). */
async function hasLegacySuppressions(db: Db, organizationId: string): Promise<boolean> {
  const row = await db
    .selectFrom('suppressions')
    .select('organization_id')
    .where('organization_id', '=', organizationId)
    .where('digest_kind', '=', 'sha256')
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The addresses of a lead, as suppressionsFor reads them. */
export interface LeadAddresses {
  phone: string | null;
  email: string | null;
}

/**
 * Channel -> opt-out source for each of these address pairs (phone: sms and
 * voice; email: email), in order: one statement for the whole list, so a bulk
 * import reads a batch's opt-outs as cheaply as a create reads one lead's.
 */
export async function suppressionsForMany(
  db: Db,
  organizationId: string,
  digests: AddressDigests,
  leads: readonly LeadAddresses[],
): Promise<Map<ChannelName, string>[]> {
  // A few addresses: their legacy digests cost less than asking whether there are any (migration 0018).
  const legacy = leads.length < LEGACY_PROBE_FROM || (await hasLegacySuppressions(db, organizationId));
  const of = new Map<string, [string, string | undefined]>();
  for (const l of leads) {
    for (const address of [l.phone, l.email])
      if (address && !of.has(address))
        of.set(address, [digests.keyed(address), legacy ? digests.legacy(address) : undefined]);
  }
  const found = new Map<string, string>();
  if (of.size > 0) {
    const rows = await db
      .selectFrom('suppressions')
      .select(['channel', 'address_digest', 'source'])
      .where('organization_id', '=', organizationId)
      // Every channel, named: the key is (organization, channel, digest), and without the channel both
      // databases walked all of the organization's opt-outs to test the digests.
      .where('channel', 'in', CHANNELS)
      .where(
        inArray(
          db,
          'address_digest',
          [...of.values()].flat().filter((d): d is string => d !== undefined),
        ),
      )
      .execute();
    for (const r of rows) found.set(`${r.channel}:${r.address_digest}`, r.source);
  }
  return leads.map((l) => {
    const out = new Map<ChannelName, string>();
    if (found.size === 0) return out;
    for (const c of CHANNELS) {
      const address = c === 'email' ? l.email : l.phone;
      if (!address) continue;
      // biome-ignore lint/style/noNonNullAssertion: every non-empty phone and email of leads was put in of above
      const [keyed, legacy] = of.get(address)!;
      const source = found.get(`${c}:${keyed}`) ?? (legacy === undefined ? undefined : found.get(`${c}:${legacy}`));
      if (source !== undefined) out.set(c, source);
    }
    return out;
  });
}

/** Channel -> opt-out source of the addresses a lead holds (phone: sms and voice; email: email). */
export async function suppressionsFor(
  db: Db,
  organizationId: string,
  digests: AddressDigests,
  phone: string | null,
  email: string | null,
): Promise<Map<ChannelName, string>> {
  if (!phone && !email) return new Map();
  // biome-ignore lint/style/noNonNullAssertion: suppressionsForMany answers one map per lead passed, and one was passed
  return (await suppressionsForMany(db, organizationId, digests, [{ phone, email }]))[0]!;
}

/** The opt-out source of one address on one channel (keyed or legacy digest), or undefined: what the gate asks at send time. */
export async function suppressionOf(
  db: Db,
  organizationId: string,
  digests: AddressDigests,
  channel: ChannelName,
  address: string,
): Promise<string | undefined> {
  return suppressionSource(db, organizationId, channel, [digests.keyed(address), digests.legacy(address)]);
}

/** Which of these address digests (keyed or legacy) are suppressed on any channel: a batch's pre-screen, one statement. */
export async function suppressedDigests(
  db: Db,
  organizationId: string,
  addressDigests: readonly string[],
): Promise<Set<string>> {
  if (addressDigests.length === 0) return new Set();
  const rows = await db
    .selectFrom('suppressions')
    .select('address_digest')
    .where('organization_id', '=', organizationId)
    .where('channel', 'in', CHANNELS)
    .where(inArray(db, 'address_digest', addressDigests))
    .execute();
  return new Set(rows.map((r) => r.address_digest));
}
