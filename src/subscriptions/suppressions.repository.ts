import { createHash } from 'node:crypto';
import type { Db } from '../platform/db/schema.js';
import type { ChannelName } from './channels.js';

/** Addresses are kept only as digests: an erased lead's opt-out survives without its phone or email. */
export const addressDigest = (address: string): string => createHash('sha256').update(address.toLowerCase(), 'utf8').digest('hex');

/** Records opt-outs: one statement for all the channels of a change (at least one entry). */
export function suppressQuery(db: Db, organizationId: string, entries: { channel: ChannelName; address: string }[], source: string, at: string) {
  return db
    .insertInto('suppressions')
    .values(entries.map((e) => ({ organization_id: organizationId, channel: e.channel, address_digest: addressDigest(e.address), source, created_at: at })))
    .onConflict((oc) => oc.columns(['organization_id', 'channel', 'address_digest']).doUpdateSet({ source, created_at: at }));
}

export async function unsuppress(db: Db, organizationId: string, channel: ChannelName, address: string): Promise<void> {
  await db
    .deleteFrom('suppressions')
    .where('organization_id', '=', organizationId)
    .where('channel', '=', channel)
    .where('address_digest', '=', addressDigest(address))
    .execute();
}

/** Channel -> opt-out source, for the addresses a new or changed lead brings. */
export async function suppressionsFor(db: Db, organizationId: string, phone: string | null, email: string | null): Promise<Map<ChannelName, string>> {
  const digests = [phone, email].filter((a): a is string => !!a).map(addressDigest);
  const out = new Map<ChannelName, string>();
  if (digests.length === 0) return out;
  const rows = await db
    .selectFrom('suppressions')
    .select(['channel', 'address_digest', 'source'])
    .where('organization_id', '=', organizationId)
    .where('address_digest', 'in', digests)
    .execute();
  const phoneDigest = phone ? addressDigest(phone) : undefined;
  const emailDigest = email ? addressDigest(email) : undefined;
  for (const r of rows) {
    const matches = r.channel === 'email' ? r.address_digest === emailDigest : r.address_digest === phoneDigest;
    if (matches) out.set(r.channel, r.source);
  }
  return out;
}
