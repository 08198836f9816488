import { sql, type RawBuilder, type SqlBool } from 'kysely';

/**
 * `column` contains `text`, the same on both dialects: SQLite's LIKE ignores
 * ASCII case and PostgreSQL's does not, so both sides are lowered; `%`, `_`
 * and `\` in the text (an email may hold `_`) are escaped. Used by erasure to
 * find free text that quotes an address.
 */
export function mentions(column: string, text: string): RawBuilder<SqlBool> {
  const pattern = `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}
