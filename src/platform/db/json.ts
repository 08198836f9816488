import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { dialectOf } from './connect.js';
import type { Db } from './schema.js';

/**
 * A correlated subquery yielding a JSON array with one object per row of
 * `from` (`from <table> where <correlation>`), `[]` when there is none. Each
 * dialect builds JSON with its own functions; the caller writes the shape once.
 * Keys and columns are code constants, never client input.
 */
export function jsonObjects(
  db: Db,
  fields: readonly (readonly [key: string, column: string])[],
  from: RawBuilder<unknown>,
  orderBy: string,
): RawBuilder<unknown> {
  const pairs = sql.raw(fields.map(([key, column]) => `'${key}', ${column}`).join(', '));
  return dialectOf(db) === 'postgres'
    ? sql<unknown>`(select coalesce(json_agg(json_build_object(${pairs}) order by ${sql.raw(orderBy)}), '[]'::json) ${from})`
    : sql<unknown>`(select json_group_array(json_object(${pairs})) ${from})`;
}

/** A JSON scalar as clients write it (additionalInfo values). */
export type JsonScalar = string | number | boolean;

/**
 * Whether the JSON object in `column` (text) has `key` with this value, of the
 * same JSON type: `3` is not `"3"`, `3` is `3.0`, `true` is not `1`. What
 * `JSON.parse(column)[key] === value` says in JavaScript, answered by the
 * database so only matching rows travel. The key and the value are bound
 * parameters (any key a client writes); `column` is a code constant.
 */
export function jsonHasScalar(db: Db, column: string, key: string, value: JsonScalar): RawBuilder<SqlBool> {
  const col = sql.ref(column);
  if (dialectOf(db) === 'postgres')
    return sql<SqlBool>`((${col})::jsonb -> ${key}::text) = ${JSON.stringify(value)}::jsonb`;
  // json_each, not json_extract: a key is never spliced into a JSON path. Types are json_each's names.
  const typed =
    typeof value === 'boolean'
      ? sql`type = ${value ? 'true' : 'false'}`
      : typeof value === 'number'
        ? sql`type in ('integer', 'real') and value = ${value}`
        : sql`type = 'text' and value = ${value}`;
  return sql<SqlBool>`exists (select 1 from json_each(${col}) where key = ${key} and ${typed})`;
}
