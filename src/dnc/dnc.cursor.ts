import { DomainError } from '../platform/errors.js';
import { encodeCursor } from '../platform/http/pagination.js';

/**
 * The DNC list is keyed by phone, not by a UUID, so its cursor (base64url of
 * the last phone of the page, like every other cursor) needs its own decoder:
 * platform/http/pagination.ts only accepts UUID-shaped ids.
 */
export function decodePhoneCursor(token: string | undefined): string | undefined {
  if (token === undefined || token === '') return undefined;
  const phone = Buffer.from(token, 'base64url').toString('utf8');
  if (!/^\+\d{2,20}$/.test(phone)) throw new DomainError('invalid_cursor');
  return phone;
}

/** Rows come as limit+1; the extra row only tells whether another page exists. */
export function pageByPhone<T extends { phone: string }>(
  rows: T[],
  limit: number,
): { items: T[]; nextToken: string | null } {
  if (rows.length <= limit) return { items: rows, nextToken: null };
  const items = rows.slice(0, limit);
  // biome-ignore lint/style/noNonNullAssertion: rows.length > limit here, so items is not empty (limit >= 1)
  return { items, nextToken: encodeCursor(items[items.length - 1]!.phone) };
}
