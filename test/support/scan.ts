import { sql, type Kysely } from 'kysely';
import type { Dialect } from './harness.js';

export interface TextColumn {
  table: string;
  column: string;
}

/** A needle found in a stored value. */
export interface Hit {
  table: string;
  column: string;
  needle: string;
  value: string;
  /** The whole row, to judge whether the hit is allowed (e.g. an id in a pending job). */
  row: Record<string, unknown>;
}

const SQLITE_TEXT = /char|clob|text|json/i;
const PG_TEXT = new Set(['text', 'character varying', 'character', 'json', 'jsonb', 'xml']);

/**
 * Every text column of every table, read from the database's own catalog
 * (sqlite_master + pragma table_info; information_schema.columns), so a
 * table or column added by a later migration is scanned without anyone
 * remembering to list it. A SQLite column without a declared type holds text
 * too (no affinity), so it counts.
 */
export async function textColumns(db: Kysely<any>, dialect: Dialect): Promise<TextColumn[]> {
  if (dialect === 'sqlite') {
    const tables = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'table' and name not like 'sqlite%' order by name`.execute(db);
    const out: TextColumn[] = [];
    for (const { name } of tables.rows) {
      const cols = await sql<{ name: string; type: string }>`select name, type from pragma_table_info(${name})`.execute(
        db,
      );
      for (const c of cols.rows)
        if (c.type === '' || SQLITE_TEXT.test(c.type)) out.push({ table: name, column: c.name });
    }
    return out;
  }
  const cols = await sql<{ table_name: string; column_name: string; data_type: string }>`
    select c.table_name, c.column_name, c.data_type
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
    order by c.table_name, c.ordinal_position`.execute(db);
  return cols.rows.filter((c) => PG_TEXT.has(c.data_type)).map((c) => ({ table: c.table_name, column: c.column_name }));
}

/**
 * Reads every row of every table with a text column and reports each text
 * value that contains one of `needles` (case-insensitively: an address may be
 * stored in another case than it was given).
 */
export async function scanText(db: Kysely<any>, dialect: Dialect, needles: readonly string[]): Promise<Hit[]> {
  const byTable = new Map<string, string[]>();
  for (const c of await textColumns(db, dialect)) byTable.set(c.table, [...(byTable.get(c.table) ?? []), c.column]);
  const lowered = needles.map((n) => [n, n.toLowerCase()] as const);
  const hits: Hit[] = [];
  for (const [table, columns] of byTable) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    for (const row of rows.rows) {
      for (const column of columns) {
        const value = row[column];
        if (value === null || value === undefined) continue;
        const text = (typeof value === 'string' ? value : JSON.stringify(value)).toLowerCase();
        for (const [needle, low] of lowered)
          if (text.includes(low))
            hits.push({
              table,
              column,
              needle,
              value: String(typeof value === 'string' ? value : JSON.stringify(value)),
              row,
            });
      }
    }
  }
  return hits;
}

/** How many text columns and tables the scan covers (to show it is not vacuous). */
export async function scanCoverage(
  db: Kysely<any>,
  dialect: Dialect,
): Promise<{ tables: Set<string>; columns: number }> {
  const cols = await textColumns(db, dialect);
  return { tables: new Set(cols.map((c) => c.table)), columns: cols.length };
}
