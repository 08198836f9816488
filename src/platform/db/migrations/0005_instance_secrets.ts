import type { Kysely } from 'kysely';

// Secrets of the installation itself (not of an organization), generated on first start
// when the operator sets none, so every process on the same database uses the same key
// and what was signed before a restart still verifies after it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('instance_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('instance_secrets').execute();
}
