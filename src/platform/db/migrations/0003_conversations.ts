import type { Kysely } from 'kysely';

// Conversations: why a message exists (a compliance reply may reach a number that just
// opted out; a conversation message may not), the provider's id for status callbacks,
// and inbound messages from senders who are not leads (kept, never answered).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('messages')
    .addColumn('purpose', 'text', (c) => c.notNull().defaultTo('conversation'))
    .execute();
  await db.schema.alterTable('messages').addColumn('provider_message_id', 'text').execute();
  await db.schema
    .createIndex('messages_provider_idx')
    .on('messages')
    .columns(['organization_id', 'provider_message_id'])
    .execute();

  await db.schema
    .createTable('unmatched_inbound')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text')
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('unmatched_inbound_pk', ['organization_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('unmatched_inbound').execute();
  await db.schema.dropIndex('messages_provider_idx').execute();
  await db.schema.alterTable('messages').dropColumn('provider_message_id').execute();
  await db.schema.alterTable('messages').dropColumn('purpose').execute();
}
