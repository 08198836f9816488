import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresDialect, type LogEvent } from 'kysely';
import { createRequire } from 'node:module';
import type pgModule from 'pg';
import type { Database } from './schema.js';
import { statementName } from './prepared.js';
import { GroupCommitSqliteDialect } from './sqlite-group-commit.js';
import { wakingDialect, WorkSignal } from './wake.js';
import { listenForWork, type Listening, type ListenOptions } from './listen.js';

export type DialectName = 'sqlite' | 'postgres';

/** The dialect a handle (database or transaction) speaks, for the few statements written per dialect. */
export function dialectOf(db: { getExecutor(): { adapter: unknown } }): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  /** Wakes when a transaction that wrote work for the worker commits (wake.ts). */
  work: WorkSignal;
  /**
   * PostgreSQL: hear work committed by other processes too (LISTEN, listen.ts).
   * Absent on SQLite, where a separate worker process finds work by polling.
   */
  listen?(options?: ListenOptions): Listening;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** PostgreSQL: a query without an answer after this long fails; 0 waits for ever. */
  queryTimeoutMs?: number;
  /**
   * SQLite: how long a write waits for another process's write lock before
   * failing with "database is locked". The server keeps it short (a waiting
   * request holds the event loop); a CLI command can wait its turn.
   */
  busyTimeoutMs?: number;
  /**
   * PostgreSQL: run prepared queries (platform/db/prepared.ts) as named
   * server-side statements, parsed and planned once per connection. Turn off
   * behind a pooler that cannot keep them (PgBouncer in transaction mode
   * before 1.21).
   */
  namedStatements?: boolean;
  /** Told the text of every statement run through the query builder (not BEGIN/COMMIT): the bench counts them. */
  onStatement?: (sql: string) => void;
}

/** Kysely's log hook, when a caller counts statements. */
const statementLog = (onStatement?: (sql: string) => void) =>
  onStatement
    ? {
        log: (e: LogEvent) => {
          if (e.level === 'query') onStatement(e.query.sql);
        },
      }
    : {};

function openSqlite(path: string, busyTimeoutMs: number, onStatement?: (sql: string) => void): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SqliteDatabase(path);
  sqlite.pragma('journal_mode = WAL');
  // FULL: every commit is fsynced before it is acknowledged (durable, not just consistent).
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  sqlite.pragma('foreign_keys = ON');
  // A deleted row's bytes are overwritten with zeros, not left in the page's free space where
  // `strings` on the file finds an erased lead (its cost on writes: bench/README.md). The WAL's
  // older page images are the other copy: erasure truncates it (scrub.ts).
  sqlite.pragma('secure_delete = ON');
  // Transactions share durable commits (see sqlite-group-commit.ts); the outer one starts with
  // BEGIN IMMEDIATE, so a second process (the CLI) never fails a read-then-write half way.
  const work = new WorkSignal();
  const db = new Kysely<Database>({
    dialect: wakingDialect(new GroupCommitSqliteDialect(sqlite), work, false),
    ...statementLog(onStatement),
  });
  return { db, dialect: 'sqlite', work, close: () => db.destroy() };
}

/**
 * A query without an answer after `queryTimeoutMs` fails (0: wait for ever):
 * when the network to the database silently drops packets, nothing else ends
 * the wait, and every request would hang. The connection it ran on stays busy
 * until its answer arrives or the connection dies; later queries on it time
 * out the same way, so requests fail fast until the database is back.
 */
function openPostgres(
  url: string,
  poolSize: number,
  queryTimeoutMs: number,
  namedStatements: boolean,
  onStatement?: (sql: string) => void,
): Store {
  // Loaded only when PostgreSQL is configured: a SQLite deployment never pays for the driver.
  const pg = createRequire(import.meta.url)('pg') as typeof pgModule;
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: 5000,
    query_timeout: queryTimeoutMs || undefined,
  });
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor may a client that loses its server while lent out (a query in flight when PostgreSQL stops):
  // pg emits 'error' on it besides failing the query, and an 'error' event without a listener kills
  // the process. The query's caller gets the error; the pool drops the dead client on release.
  const work = new WorkSignal();
  pool.on('connect', (client: pgModule.PoolClient) => {
    client.on('error', () => {});
    if (namedStatements) useNamedStatements(client);
    work.ownBackend(processOf(client), true);
  });
  pool.on('remove', (client: pgModule.PoolClient) => work.ownBackend(processOf(client), false));
  const db = new Kysely<Database>({
    dialect: wakingDialect(new PostgresDialect({ pool }), work, true),
    ...statementLog(onStatement),
  });
  return {
    db,
    dialect: 'postgres',
    work,
    listen: (options) => listenForWork(url, work, options),
    close: () => db.destroy(),
  };
}

/** The backend process a pool client talks to (pg learns it when the connection opens). */
const processOf = (client: pgModule.PoolClient) => (client as unknown as { processID: number | null }).processID;

/**
 * Kysely hands the driver SQL text and values; for the text of a prepared
 * query, this client sends a named statement instead, which pg parses once per
 * connection and then only binds and executes. Any other text goes as before.
 */
function useNamedStatements(client: pgModule.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (text: unknown, values?: unknown, ...rest: unknown[]) => {
    const name = typeof text === 'string' && Array.isArray(values) ? statementName(text) : undefined;
    return name ? query({ name, text, values }, ...rest) : query(text, values, ...rest);
  };
}

export function openStore(databaseUrl: string, poolSize = 10, options: StoreOptions = {}): Store {
  if (databaseUrl.startsWith('sqlite:'))
    return openSqlite(databaseUrl.slice('sqlite:'.length), options.busyTimeoutMs ?? 5000, options.onStatement);
  return openPostgres(
    databaseUrl,
    poolSize,
    options.queryTimeoutMs ?? 0,
    options.namedStatements ?? true,
    options.onStatement,
  );
}
