import type { Kysely } from 'kysely';

// Imports keep a lead whose row has one bad field when it still has a valid address (imports/rows.ts): the
// field is left out and the row is listed in the rejects file with its warnings, an empty reason. imports.warned
// counts those rows.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('import_rejects').addColumn('warnings', 'text').execute();
  await db.schema
    .alterTable('imports')
    .addColumn('warned', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('import_rejects').dropColumn('warnings').execute();
  await db.schema.alterTable('imports').dropColumn('warned').execute();
}
