import { sql, type RawBuilder } from 'kysely';
import { dialectOf } from './connect.js';
import type { Db } from './schema.js';

/**
 * A correlated subquery yielding a JSON array with one object per row of
 * `from` (`from <table> where <correlation>`), `[]` when there is none. Each
 * dialect builds JSON with its own functions; the caller writes the shape once.
 * Keys and columns are code constants, never client input.
 */
export function jsonObjects(db: Db, fields: readonly (readonly [key: string, column: string])[], from: RawBuilder<unknown>, orderBy: string): RawBuilder<unknown> {
  const pairs = sql.raw(fields.map(([key, column]) => `'${key}', ${column}`).join(', '));
  return dialectOf(db) === 'postgres'
    ? sql<unknown>`(select coalesce(json_agg(json_build_object(${pairs}) order by ${sql.raw(orderBy)}), '[]'::json) ${from})`
    : sql<unknown>`(select json_group_array(json_object(${pairs})) ${from})`;
}
