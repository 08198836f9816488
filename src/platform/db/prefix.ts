import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { dialectOf } from './connect.js';
import type { Db } from './schema.js';

/** The smallest string above every string that starts with `prefix` (its last character raised by one). */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/**
 * `lower(column)` starts with `prefix` (already lowercased), as an index range
 * (migration 0017 indexes these expressions). On PostgreSQL the comparison is in
 * the "C" collation, as the index is: byte order, where every string with the
 * prefix sits between the prefix and prefixEnd, whatever the database's
 * collation. SQLite's default (BINARY) already compares that way. SQLite's
 * lower() folds ASCII letters only, so a non-ASCII capital matches exactly.
 */
export function lowerStartsWith(db: Db, column: 'first_name' | 'last_name', prefix: string): RawBuilder<SqlBool> {
  const expr =
    dialectOf(db) === 'postgres' ? sql`(lower(${sql.ref(column)}) collate "C")` : sql`lower(${sql.ref(column)})`;
  return between(expr, prefix);
}

/**
 * The stored email starts with `prefix` (already lowercased; emails are stored
 * lowercased), as a range of leads_email_id_idx on SQLite and of
 * leads_email_prefix_idx ("C" collation) on PostgreSQL: migration 0022.
 */
export function emailStartsWith(db: Db, prefix: string): RawBuilder<SqlBool> {
  return between(dialectOf(db) === 'postgres' ? sql`(leads.email collate "C")` : sql`leads.email`, prefix);
}

const between = (expr: RawBuilder<unknown>, prefix: string) =>
  sql<SqlBool>`(${expr} >= ${prefix} and ${expr} < ${prefixEnd(prefix)})`;
