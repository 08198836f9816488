import type { Kysely } from 'kysely';

// CSV imports of leads (src/imports/): one row per import with its state and
// counts, written in the same transaction as each batch of leads, so after a
// crash the counts say what was committed; and the rejected rows with the
// reason, for GET /v1/imports/{id}/rejects. `raw` is the row as read (JSON of
// header -> value): it is the organization's own upload, erased with the import.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('imports')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('headers', 'text')
    .addColumn('total', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('rejected', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addPrimaryKeyConstraint('imports_pk', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createTable('import_rejects')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('import_id', 'text', (c) => c.notNull())
    .addColumn('row_number', 'integer', (c) => c.notNull())
    .addColumn('raw', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_rejects_pk', ['organization_id', 'import_id', 'row_number'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('import_rejects').execute();
  await db.schema.dropTable('imports').execute();
}
