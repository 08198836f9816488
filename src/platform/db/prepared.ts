import type { Compilable, CompiledQuery, DialectAdapter } from 'kysely';
import type { Db } from './schema.js';

/**
 * A hot statement, written with Kysely (types, both dialects) but built and
 * compiled once per dialect instead of on every call. Kysely's building and
 * compiling (operation-node visitors, frozen copies) cost as much as the
 * SQLite lookup itself: compiling GET /v1/leads/{id}'s query once took a fifth
 * off the route's CPU per request (bench/README.md).
 *
 * `build` is called once with placeholder arguments: each that is used must
 * reach the query as exactly one bound value (a `where` operand, a `limit`),
 * never be inspected, concatenated or spread into a list (the first compile
 * refuses a placeholder found altered or in the SQL text). Each call
 * then runs the compiled SQL with its own values put in the placeholders'
 * places, through the same executor (so SQLite's group commit and PostgreSQL's
 * pool and transactions behave exactly as for any other query).
 */
export function prepared<A extends readonly unknown[], R>(
  build: (db: Db, ...args: A) => Compilable<R>,
): (db: Db, ...args: A) => Promise<R[]> {
  // Keyed by the dialect's adapter: a transaction shares its database's, so one compile serves both.
  const compiled = new WeakMap<DialectAdapter, { query: CompiledQuery<R>; slots: Slot[] }>();
  return async (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let entry = compiled.get(adapter);
    if (!entry) {
      entry = compile(db, build, args.length);
      compiled.set(adapter, entry);
    }
    const { query, slots } = entry;
    const parameters = slots.map((s) => (typeof s === 'number' ? args[s] : s.value));
    const result = await db.executeQuery<R>({ ...query, parameters });
    return result.rows;
  };
}

/** The SQL texts of prepared queries, by PostgreSQL statement name (connect.ts sends them as named statements). */
const names = new Map<string, string>();

export function statementName(sqlText: string): string | undefined {
  return names.get(sqlText);
}

/**
 * Marks a statement text worth keeping prepared. The set is bounded: a
 * caller that generates many texts (executeTogether's combinations) stops
 * adding once it is full, and those texts simply run unnamed.
 */
export function nameStatement(sqlText: string): void {
  if (!names.has(sqlText) && names.size < 1000) names.set(sqlText, `parley_${names.size + 1}`);
}

/** A compiled parameter: the index of the caller's argument, or a value fixed in the query itself. */
type Slot = number | { value: unknown };

const placeholder = (i: number) => `\u0000parley-prepared-${i}\u0000`;

function compile<A extends readonly unknown[], R>(db: Db, build: (db: Db, ...args: A) => Compilable<R>, arity: number) {
  const placeholders = Array.from({ length: arity }, (_, i) => placeholder(i));
  const query = build(db, ...(placeholders as unknown as A)).compile();
  const slots = query.parameters.map((p): Slot => {
    const i = placeholders.indexOf(p as string);
    if (i >= 0) return i;
    if (typeof p === 'string' && p.includes('\u0000parley-prepared-'))
      throw new Error('prepared query: a placeholder was altered; pass each argument as one value');
    return { value: p };
  });
  if (query.sql.includes('\u0000'))
    throw new Error('prepared query: a placeholder reached the SQL text; pass each argument as a bound value');
  nameStatement(query.sql);
  return { query, slots };
}
