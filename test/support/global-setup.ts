import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { buildTemplates, type DbTemplates } from './db-templates.js';
import { bundleParser } from './parser-bundle.js';

export const PG_ADMIN_URL = process.env.PARLEY_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAvailable: boolean;
    /** Migrated databases the harness copies for each test server (db-templates.ts). */
    dbTemplates: DbTemplates;
  }
}

/**
 * Decides once whether the PostgreSQL suite runs. Without a server it is
 * skipped, loudly; under CI=true a missing server is a failure, not a skip.
 * Then migrates, once for the run, the databases test servers start from
 * (db-templates.ts), and bundles the import's parsing thread (parser-bundle.ts); answers their teardown.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  let available = false;
  try {
    await client.connect();
    await client.query('select 1');
    available = true;
  } catch (err) {
    if (process.env.CI === 'true')
      throw new Error(`PostgreSQL is required in CI but unreachable at ${PG_ADMIN_URL}: ${(err as Error).message}`);
    console.warn(
      `\n*** PostgreSQL not reachable at ${PG_ADMIN_URL}: the PostgreSQL suite is SKIPPED (SQLite only). ***\n`,
    );
  } finally {
    await client.end().catch(() => {});
  }
  project.provide('pgAvailable', available);
  const [{ templates, drop }, removeParser] = await Promise.all([
    buildTemplates(PG_ADMIN_URL, available),
    bundleParser(),
  ]);
  project.provide('dbTemplates', templates);
  return async () => {
    await Promise.all([drop(), removeParser()]);
  };
}
