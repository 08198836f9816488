import type { Kysely } from 'kysely';

// Portable types only (text, integer): the same migration runs on SQLite and PostgreSQL.
// Every key starts with organization_id so the schema can be sharded by organization.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_org_idx').on('api_keys').columns(['organization_id', 'created_at']).execute();

  await db.schema
    .createTable('customer_profiles')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('instructions', 'text')
    .addColumn('opening_message', 'text')
    .addColumn('questions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_profiles_pk', ['organization_id', 'id'])
    .addUniqueConstraint('customer_profiles_name_uq', ['organization_id', 'name'])
    .execute();

  await db.schema
    .createTable('leads')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('first_name', 'text')
    .addColumn('last_name', 'text')
    .addColumn('phone', 'text')
    .addColumn('email', 'text')
    .addColumn('customer_profile', 'text', (c) => c.notNull())
    .addColumn('time_zone', 'text')
    .addColumn('external_lead_id', 'text')
    .addColumn('additional_info', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('summary', 'text')
    .addColumn('has_replied', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_hot', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_qualified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_ai_on', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('sms_status', 'text', (c) => c.notNull())
    .addColumn('voice_status', 'text', (c) => c.notNull())
    .addColumn('email_status', 'text', (c) => c.notNull())
    .addColumn('sms_opt_out_source', 'text')
    .addColumn('voice_opt_out_source', 'text')
    .addColumn('email_opt_out_source', 'text')
    .addColumn('memory_cleared_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_activity_at', 'text')
    .addPrimaryKeyConstraint('leads_pk', ['organization_id', 'id'])
    .execute();
  // A phone is unique in its organization (NULLs do not collide on either dialect).
  await db.schema.createIndex('leads_phone_uq').on('leads').columns(['organization_id', 'phone']).unique().execute();
  await db.schema.createIndex('leads_email_idx').on('leads').columns(['organization_id', 'email']).execute();
  await db.schema
    .createIndex('leads_external_idx')
    .on('leads')
    .columns(['organization_id', 'external_lead_id'])
    .execute();
  await db.schema
    .createIndex('leads_updated_idx')
    .on('leads')
    .columns(['organization_id', 'updated_at', 'id'])
    .execute();

  await db.schema
    .createTable('lead_tags')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('condition', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lead_tags_pk', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('lead_tags_lead_idx')
    .on('lead_tags')
    .columns(['organization_id', 'lead_id', 'id'])
    .execute();

  await db.schema
    .createTable('lead_notes')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('consumed_at', 'text')
    .addPrimaryKeyConstraint('lead_notes_pk', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('lead_notes_lead_idx')
    .on('lead_notes')
    .columns(['organization_id', 'lead_id', 'id'])
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('is_ai_generated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_reason', 'text')
    .addColumn('scheduled_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('messages_pk', ['organization_id', 'id'])
    .execute();
  // Keyset pages of one lead's history: cost independent of history length.
  await db.schema
    .createIndex('messages_lead_idx')
    .on('messages')
    .columns(['organization_id', 'lead_id', 'id'])
    .execute();

  await db.schema
    .createTable('dnc_entries')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('phone', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('dnc_entries_pk', ['organization_id', 'phone'])
    .execute();

  await db.schema
    .createTable('suppressions')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('address_digest', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('suppressions_pk', ['organization_id', 'channel', 'address_digest'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('dispatched_at', 'text')
    .addPrimaryKeyConstraint('events_pk', ['organization_id', 'id'])
    .execute();
  await db.schema.createIndex('events_pending_idx').on('events').columns(['dispatched_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of [
    'events',
    'suppressions',
    'dnc_entries',
    'messages',
    'lead_notes',
    'lead_tags',
    'leads',
    'customer_profiles',
    'api_keys',
    'organizations',
  ]) {
    await db.schema.dropTable(t).execute();
  }
}
