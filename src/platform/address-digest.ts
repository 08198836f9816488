import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/**
 * Suppressions and the consent ledger name an address (a phone in E.164, an
 * email) only by a digest, so an erased lead's opt-out survives without its
 * address. The digest is HMAC-SHA256 keyed by an instance secret (instance_secrets
 * 'address-digest'): a plain hash of a phone number is reversed by trying the
 * few billion numbers there are. `legacy` is the unkeyed SHA-256 earlier
 * versions wrote; it is only ever matched, never written.
 */
/** The instance secret (instance_secrets.name) that keys the digests; migration 0007 made it. */
export const ADDRESS_DIGEST_SECRET = 'address-digest';

export interface AddressDigests {
  keyed(address: string): string;
  legacy(address: string): string;
  /** The key, for a thread that digests beside this one (an import's parsing thread: imports/parse.ts); a KeyObject crosses threads. */
  readonly key: KeyObject;
}

export const normaliseAddress = (address: string): string => address.trim().toLowerCase();

export function addressDigests(secret: string | KeyObject): AddressDigests {
  // Prepared once: a string key is turned into one on every digest (a sixth of an HMAC's cost).
  const key = typeof secret === 'string' ? createSecretKey(Buffer.from(secret, 'utf8')) : secret;
  return {
    key,
    keyed: (address) => createHmac('sha256', key).update(normaliseAddress(address), 'utf8').digest('hex'),
    legacy: (address) => createHash('sha256').update(normaliseAddress(address), 'utf8').digest('hex'),
  };
}
