import { CompiledQuery, sql, type Insertable, type RawBuilder, type SqlBool } from 'kysely';
import { dialectOf } from './connect.js';
import type { Database, Db } from './schema.js';

/**
 * `column IN (values)` with the whole list bound as ONE parameter: an array
 * on PostgreSQL (`= any($1::text[])`), a JSON array on SQLite (`in (select
 * value from json_each(?))`). Both probe the column's index once per value,
 * as an IN list does, but the statement's text is the same whatever the
 * count: no chunking under the bound-parameter limits, one round trip, a
 * statement SQLite prepares once, and nothing for Kysely to build per value
 * (a 900-value IN list cost more to build and compile than to run).
 */
export function inArray(db: Db, column: string, values: readonly string[]): RawBuilder<SqlBool> {
  if (dialectOf(db) === 'postgres') return sql<SqlBool>`${sql.ref(column)} = any(${[...values]}::text[])`;
  return sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(values)}))`;
}

/** Rows per multi-row INSERT on SQLite: a lead binds about 30 values, well inside its 32766 bound parameters. */
const SQLITE_INSERT_CHUNK = 500;

/**
 * The text of a multi-row INSERT, written once per shape: built by Kysely, a
 * 500-row INSERT was 15,000 value nodes to build, visit and compile per
 * statement (a sixth of an import's CPU, with the garbage it left). The driver
 * keeps the statement prepared by its text.
 */
const insertTexts = new Map<string, string>();
function sqliteInsertText(table: string, columns: readonly string[], rowCount: number): string {
  const key = `${table}|${columns.join(',')}|${rowCount}`;
  let text = insertTexts.get(key);
  if (!text) {
    const tuple = `(${columns.map(() => '?').join(',')})`;
    text = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(',')}) values ${Array.from({ length: rowCount }, () => tuple).join(',')}`;
    if (insertTexts.size < 100) insertTexts.set(key, text);
  }
  return text;
}

/** Column types of a PostgreSQL table, read once per process (every database of one build has the same schema). */
const columnTypes = new Map<string, Map<string, string>>();

async function typesOf(db: Db, table: string): Promise<Map<string, string>> {
  let types = columnTypes.get(table);
  if (!types) {
    const { rows } = await sql<{ column_name: string; udt_name: string }>`
      select column_name, udt_name from information_schema.columns
      where table_schema = current_schema() and table_name = ${table}`.execute(db);
    types = new Map(rows.map((r) => [r.column_name, r.udt_name]));
    columnTypes.set(table, types);
  }
  return types;
}

/**
 * Inserts many rows of one shape. PostgreSQL gets ONE statement whatever the
 * count, each column bound as one typed array and turned back into rows by
 * `unnest` (the way to bulk-insert without COPY): a batch of 2,000 leads was
 * four 15,000-parameter statements, each built by Kysely value by value. SQLite
 * runs in-process, where a round trip costs nothing: multi-row INSERTs of 500,
 * their text written once per shape. Column names come from the caller's typed
 * rows (Database's column names), never from input.
 */
export async function insertRows<T extends keyof Database & string>(
  db: Db,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): Promise<void> {
  if (rows.length === 0) return;
  // Every column any row names; on PostgreSQL a row without one gets NULL there (not the default): give rows one shape.
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))] as (keyof Insertable<Database[T]> & string)[];
  if (dialectOf(db) === 'postgres') {
    const types = await typesOf(db, table);
    const arrays = columns.map((c) => {
      const type = types.get(c);
      if (!type) throw new Error(`insertRows: ${table} has no column ${c}`);
      return sql`${rows.map((r) => r[c] ?? null)}::${sql.raw(type)}[]`;
    });
    await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))}) select * from unnest(${sql.join(arrays)})`.execute(
      db,
    );
    return;
  }
  for (let i = 0; i < rows.length; i += SQLITE_INSERT_CHUNK) {
    const part = rows.slice(i, i + SQLITE_INSERT_CHUNK);
    const values: unknown[] = [];
    for (const r of part) for (const c of columns) values.push(r[c] ?? null);
    await db.executeQuery(CompiledQuery.raw(sqliteInsertText(table, columns, part.length), values));
  }
}
