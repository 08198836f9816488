import { DomainError } from '../errors.js';

/** Cursors are opaque to clients: base64url of the last id of the page. */
export const encodeCursor = (lastId: string): string => Buffer.from(lastId, 'utf8').toString('base64url');

export function decodeCursor(token: string | undefined): string | undefined {
  if (token === undefined || token === '') return undefined;
  const id = Buffer.from(token, 'base64url').toString('utf8');
  if (!/^[0-9a-f-]{36}$/.test(id)) throw new DomainError('invalid_cursor');
  return id;
}

/** Fetch limit+1 rows; the extra row only tells whether another page exists. */
export function page<T extends { id: string }>(rows: T[], limit: number): { items: T[]; nextToken: string | null } {
  if (rows.length <= limit) return { items: rows, nextToken: null };
  const items = rows.slice(0, limit);
  // biome-ignore lint/style/noNonNullAssertion: more rows than the limit (at least 1 in every schema): the page is not empty
  return { items, nextToken: encodeCursor(items[items.length - 1]!.id) };
}
