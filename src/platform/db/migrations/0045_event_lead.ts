import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../connect.js';

// The lead an event is about (its payload's top-level `leadId`) as a column of the event, and copied onto
// each of its webhook deliveries, indexed there with the endpoint: an endpoint's deliveries of one lead
// (webhooks/deliveries.repository.ts, the console's lead page) are then read by index, without reading the
// organization's events or the endpoint's whole history. The index is on deliveries, not events: deliveries
// exist only where an endpoint subscribed, while every opt-out, send and reply writes events (an events index
// by lead cost an unsubscribe 6 % of its CPU in the bench). Written from now on by events/outbox.repository.ts
// and the fan-out (webhooks/dispatcher.ts); the rows already stored are filled in here, once. Null for an
// event about no lead (campaign.paused, sendingNumber.unusable).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('lead_id', 'text').execute();
  const leadOf =
    dialectOf(db) === 'sqlite' ? sql`json_extract(payload, '$.leadId')` : sql`(payload::json ->> 'leadId')`;
  await sql`update events set lead_id = ${leadOf} where payload like '%"leadId":"%'`.execute(db);
  await db.schema.alterTable('webhook_deliveries').addColumn('lead_id', 'text').execute();
  await sql`update webhook_deliveries set lead_id = (select e.lead_id from events e
    where e.organization_id = webhook_deliveries.organization_id and e.id = webhook_deliveries.event_id)`.execute(db);
  await db.schema
    .createIndex('webhook_deliveries_lead_idx')
    .on('webhook_deliveries')
    .columns(['organization_id', 'endpoint_id', 'lead_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_lead_idx').execute();
  await db.schema.alterTable('webhook_deliveries').dropColumn('lead_id').execute();
  await db.schema.alterTable('events').dropColumn('lead_id').execute();
}
