import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { GroupCommitSqliteDialect } from './sqlite-group-commit.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: DialectName;
  close(): Promise<void>;
}

function openSqlite(path: string): Store {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SqliteDatabase(path);
  sqlite.pragma('journal_mode = WAL');
  // FULL: every commit is fsynced before it is acknowledged (durable, not just consistent).
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Transactions share durable commits (see sqlite-group-commit.ts); the outer one starts with
  // BEGIN IMMEDIATE, so a second process (the CLI) never fails a read-then-write half way.
  const db = new Kysely<Database>({ dialect: new GroupCommitSqliteDialect(sqlite) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

function openPostgres(url: string, poolSize: number): Store {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5000 });
  // An idle client losing its server must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

export function openStore(databaseUrl: string, poolSize = 10): Store {
  if (databaseUrl.startsWith('sqlite:')) return openSqlite(databaseUrl.slice('sqlite:'.length));
  return openPostgres(databaseUrl, poolSize);
}
