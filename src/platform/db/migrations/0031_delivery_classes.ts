import type { Kysely } from 'kysely';

// Provider errors acted on by class (src/deliverability/, docs/deliverability.md).
// - messages.error_code / error_class: the provider's error code of a failed send or delivery
//   report (`twilio:30007`, `smtp:550`) and its class (opted_out, invalid, unreachable, filtered,
//   unregistered_sender, transient, unknown). Filtered sends are counted by it.
// - leads.{sms,voice,email}_unreachable_digest / _code: the keyed digest of the address a provider
//   called invalid or unreachable on that channel, and the code it gave. The gate blocks the channel
//   (UNREACHABLE) while the lead's address still has that digest: a new address lifts it by itself.
// - sending_numbers.unusable_at / unusable_code: the carrier refused the number as a sender
//   (an unregistered 10DLC number): the pool stops assigning it.
// - campaigns.pause_code / pause_reason: why the campaign paused itself (FILTERED), null otherwise.
// - Indexes on messages by campaign and by sending number: the filtered rate reads the last sends of either.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('error_code', 'text').execute();
  await db.schema.alterTable('messages').addColumn('error_class', 'text').execute();
  for (const c of ['sms', 'voice', 'email']) {
    await db.schema.alterTable('leads').addColumn(`${c}_unreachable_digest`, 'text').execute();
    await db.schema.alterTable('leads').addColumn(`${c}_unreachable_code`, 'text').execute();
  }
  await db.schema.alterTable('sending_numbers').addColumn('unusable_at', 'text').execute();
  await db.schema.alterTable('sending_numbers').addColumn('unusable_code', 'text').execute();
  await db.schema.alterTable('campaigns').addColumn('pause_code', 'text').execute();
  await db.schema.alterTable('campaigns').addColumn('pause_reason', 'text').execute();
  await db.schema
    .createIndex('messages_campaign_sends_idx')
    .on('messages')
    .columns(['organization_id', 'campaign_id', 'id'])
    .execute();
  await db.schema
    .createIndex('messages_number_sends_idx')
    .on('messages')
    .columns(['organization_id', 'sending_number_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('messages_number_sends_idx').execute();
  await db.schema.dropIndex('messages_campaign_sends_idx').execute();
  for (const column of ['pause_reason', 'pause_code'])
    await db.schema.alterTable('campaigns').dropColumn(column).execute();
  for (const column of ['unusable_code', 'unusable_at'])
    await db.schema.alterTable('sending_numbers').dropColumn(column).execute();
  for (const c of ['email', 'voice', 'sms']) {
    await db.schema.alterTable('leads').dropColumn(`${c}_unreachable_code`).execute();
    await db.schema.alterTable('leads').dropColumn(`${c}_unreachable_digest`).execute();
  }
  for (const column of ['error_class', 'error_code'])
    await db.schema.alterTable('messages').dropColumn(column).execute();
}
