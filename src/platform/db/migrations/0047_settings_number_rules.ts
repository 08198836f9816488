import { sql, type Kysely } from 'kysely';

// The per-number rules of deliverability for the organization's settings number (the one sends go from when
// the organization has no pool number), as the pool's numbers have them by id (0015, 0031):
// - messages.from_number: the settings number a send went from, written when the sender is chosen; null for
//   a pool number's sends (sending_number_id names them) and for email. The filtered-pause window of the
//   settings number is its latest sends read by this column, through a partial index that holds only those
//   rows (a pool's sends, the bulk at volume, add nothing to it).
// - organizations.sending_number_unusable_at / _code: the carrier refused the settings number as a sender
//   (30032, 30034): marked once, so the alert is written once, and cleared when the setting changes.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('from_number', 'text').execute();
  await db.schema
    .createIndex('messages_from_number_idx')
    .on('messages')
    .columns(['organization_id', 'from_number', 'id'])
    .where(sql.ref('from_number'), 'is not', null)
    .execute();
  await db.schema.alterTable('organizations').addColumn('sending_number_unusable_at', 'text').execute();
  await db.schema.alterTable('organizations').addColumn('sending_number_unusable_code', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('organizations').dropColumn('sending_number_unusable_code').execute();
  await db.schema.alterTable('organizations').dropColumn('sending_number_unusable_at').execute();
  await db.schema.dropIndex('messages_from_number_idx').execute();
  await db.schema.alterTable('messages').dropColumn('from_number').execute();
}
