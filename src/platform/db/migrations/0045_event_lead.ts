import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../connect.js';

// The lead an event is about (its payload's top-level `leadId`), as a column with an index, so a lead's
// events are found without reading every event of the organization (webhooks/deliveries.repository.ts:
// the deliveries of one lead's events, from the console's lead page). Written with each event from
// now on (events/outbox.repository.ts); the events already stored are filled in here, once. Null for
// an event about no lead (campaign.paused, sendingNumber.unusable). Deliveries get an index by event, so
// that probe reaches them without reading the endpoint's whole history.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('events').addColumn('lead_id', 'text').execute();
  const leadOf =
    dialectOf(db) === 'sqlite' ? sql`json_extract(payload, '$.leadId')` : sql`(payload::json ->> 'leadId')`;
  await sql`update events set lead_id = ${leadOf} where payload like '%"leadId":"%'`.execute(db);
  await db.schema.createIndex('events_lead_idx').on('events').columns(['organization_id', 'lead_id']).execute();
  await db.schema
    .createIndex('webhook_deliveries_event_idx')
    .on('webhook_deliveries')
    .columns(['organization_id', 'event_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event_idx').execute();
  await db.schema.dropIndex('events_lead_idx').execute();
  await db.schema.alterTable('events').dropColumn('lead_id').execute();
}
