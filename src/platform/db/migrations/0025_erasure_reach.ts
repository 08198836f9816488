import { sql, type Kysely } from 'kysely';

// What an erasure must reach, and what must outlive it:
// - import_reject_keys: the keyed digest (platform/address-digest.ts) of every address a rejected
//   import row names, so erasing a lead finds the rejected rows that quote it by an index. Rejected
//   rows stored before this migration have no keys and cannot be matched: they are removed here
//   (the import's counts stay; GET /v1/imports/{id}/rejects then lists none).
// - import_rejects_by_time: rejected rows expire (PARLEY_REJECTED_ROWS_RETENTION_DAYS), counted
//   from their import's start.
// - provider_receipts: the ids of provider webhooks already processed (a Twilio MessageSid, a
//   CallSid's gather), per organization, apart from any lead, so a replay after an erasure is
//   still recognised. Ids only; they expire after PARLEY_PROVIDER_RECEIPT_RETENTION_DAYS. The ids
//   of inbound messages already stored are copied in.
// - consent_ledger.actor held an email provider's free text ("email-provider: <diagnostic>"),
//   which can quote the recipient's name and address: it is reduced to its code.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('import_reject_keys')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('import_id', 'text', (c) => c.notNull())
    .addColumn('row_number', 'integer', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_reject_keys_pk', ['organization_id', 'import_id', 'row_number', 'digest'])
    .execute();
  await db.schema
    .createIndex('import_reject_keys_digest_idx')
    .on('import_reject_keys')
    .columns(['organization_id', 'digest'])
    .execute();
  await db.deleteFrom('import_rejects').execute();
  await db.schema.createIndex('imports_started_idx').on('imports').columns(['started_at']).execute();

  await db.schema
    .createTable('provider_receipts')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('provider_receipts_pk', ['organization_id', 'id'])
    .execute();
  await db.schema.createIndex('provider_receipts_time_idx').on('provider_receipts').columns(['received_at']).execute();
  await sql`insert into provider_receipts (organization_id, id, received_at)
    select organization_id, 'twilio:' || provider_message_id || case when channel = 'voice' then ':gather' else '' end, min(created_at)
    from messages where direction = 'inbound' and provider_message_id is not null
    group by organization_id, provider_message_id, channel`.execute(db);

  await sql`update consent_ledger
    set actor = case when reason = 'BOUNCE' then 'email-provider:bounce:hard' else 'email-provider:complaint' end
    where actor like 'email-provider%' and actor not in ('email-provider:bounce:hard', 'email-provider:complaint')`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('provider_receipts').execute();
  await db.schema.dropIndex('imports_started_idx').execute();
  await db.schema.dropTable('import_reject_keys').execute();
}
