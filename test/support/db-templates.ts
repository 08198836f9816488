import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';

/**
 * Migrated databases to copy, made once per run by the global setup (test/support/global-setup.ts): a test
 * server's database is a copy of one instead of an empty database migrated again (31 migrations, each
 * commit fsynced on SQLite: most of what a server per `describe` block and dialect cost). Only the schema is
 * in them: the instance's secrets are made by each server on its first start, as in production.
 */
export interface DbTemplates {
  /** The run's name part for its PostgreSQL databases, so its teardown drops only its own. */
  run: string;
  /** A migrated SQLite file. */
  sqlite: string;
  /** A migrated PostgreSQL database's name, when PostgreSQL is reachable. */
  postgres?: string;
}

async function migrated(url: string): Promise<void> {
  const store = openStore(url, 1);
  try {
    await migrateToLatest(store);
  } finally {
    await store.close();
  }
}

async function admin<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function buildTemplates(
  adminUrl: string,
  withPostgres: boolean,
): Promise<{ templates: DbTemplates; drop(): Promise<void> }> {
  const run = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const dir = mkdtempSync(join(tmpdir(), 'parley-template-'));
  const sqlite = join(dir, 'parley.db');
  await migrated(`sqlite:${sqlite}`);
  // Closed cleanly, the WAL was folded into the file: the file alone is the database.
  if (existsSync(`${sqlite}-wal`)) throw new Error('template: the SQLite WAL outlived the close');
  let postgres: string | undefined;
  if (withPostgres) {
    postgres = `parley_tpl_${run}`;
    await admin(adminUrl, (c) => c.query(`create database ${postgres}`));
    await migrated(databaseUrl(adminUrl, postgres));
  }
  return {
    templates: { run, sqlite, postgres },
    drop: async () => {
      rmSync(dir, { recursive: true, force: true });
      if (!withPostgres) return;
      // The run's test databases whose drop had not ended when their process exited, then the template.
      await admin(adminUrl, async (c) => {
        const left = await c.query<{ datname: string }>(
          `select datname from pg_database where datname like 'parley\\_t\\_${run}\\_%'`,
        );
        for (const { datname } of left.rows) await c.query(`drop database if exists ${datname} with (force)`);
        await c.query(`drop database if exists ${postgres} with (force)`);
      });
    },
  };
}

/** A copy of the run's migrated SQLite file in a directory of its own. */
export function copySqlite(templates: DbTemplates): { url: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'parley-test-'));
  copyFileSync(templates.sqlite, join(dir, 'parley.db'));
  return { url: `sqlite:${join(dir, 'parley.db')}`, dir };
}
