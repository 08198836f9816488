import type { Kysely } from 'kysely';

// The organization's sending number (Twilio). Inbound webhooks find the organization by the
// number the lead wrote to, so one number belongs to at most one organization: the unique
// index both enforces that and serves the lookup. NULLs do not collide on either dialect.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').addColumn('sending_number', 'text').execute();
  await db.schema
    .createIndex('organizations_sending_number_key')
    .unique()
    .on('organizations')
    .column('sending_number')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('organizations_sending_number_key').execute();
  await db.schema.alterTable('organizations').dropColumn('sending_number').execute();
}
