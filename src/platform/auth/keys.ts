import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'pk_live_';
/** How much of a key is kept in clear, to name it in listings and revoke it. */
export const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 8;

/** 32 random bytes (256 bits of entropy) behind a recognisable prefix. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** SHA-256 in hex. The one-shot `hash` costs a third of a Hash object's create-update-digest (every request pays it). */
export const digestKey = (key: string): string => hash('sha256', key, 'hex');

export const displayPrefix = (key: string): string => key.slice(0, DISPLAY_PREFIX_LENGTH);

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
