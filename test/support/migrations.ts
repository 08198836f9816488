import { Migrator, type Kysely, type Migration } from 'kysely';
import { migrations } from '../../src/platform/db/migrate.js';

/** For migration tests: every migration up to and including `last`, to build the schema a migration meets. */
export function migrationsUntil(last: string): Record<string, Migration> {
  const names = Object.keys(migrations);
  if (!names.includes(last)) throw new Error(`no migration named ${last}`);
  return Object.fromEntries(names.slice(0, names.indexOf(last) + 1).map((n) => [n, migrations[n] as Migration]));
}

/** Runs exactly the given migrations (a prefix of the list, or the list itself), failing loudly. */
export async function migrateWith(db: Kysely<any>, to: Record<string, Migration>): Promise<void> {
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => to } }).migrateToLatest();
  if (error) throw error;
}
