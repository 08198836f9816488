import { sql, type Kysely } from 'kysely';

// The lead timeline (GET /v1/leads/{leadId}/events) and composed openings:
// - messages.schedule_follow_ups: sendMessage's `scheduleFollowUps` flag, kept on the message.
// - messages.updated_at: when the message last changed (created, judged by the gate, sent,
//   delivered, blocked). The timeline orders and pages by it, so a client that syncs with
//   `since` sees a send again when it is blocked or delivered. Existing rows start at their
//   creation time.
// - lead_openings: each opening message a customer profile asked for (on creation or on a
//   switch with sendMessage), whether rendered from the profile's template or composed by the
//   agent: what it was for (profile), where it stands (composing, scheduled, skipped, failed),
//   the message it became and, when it failed, why. A re-switch to the same profile reads it
//   so the opening is not sent twice. No personal data: ids, a profile name and an error text.
// - keyset indexes (organization_id, lead_id, updated_at/created_at, id) for each source of the
//   timeline: a page costs the same on the first day of a lead and after years of history.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('updated_at', 'text').execute();
  // sendMessage `scheduleFollowUps`: 1 when the organization asked for follow-ups after this send
  // (the follow-up engine reads it when the message goes out); null for every other message.
  await db.schema.alterTable('messages').addColumn('schedule_follow_ups', 'integer').execute();
  await db.updateTable('messages').set({ updated_at: sql`created_at` }).where('updated_at', 'is', null).execute();
  await db.schema
    .createIndex('messages_lead_updated_idx')
    .on('messages')
    .columns(['organization_id', 'lead_id', 'updated_at', 'id'])
    .execute();
  await db.schema
    .createIndex('agent_turns_lead_updated_idx')
    .on('agent_turns')
    .columns(['organization_id', 'lead_id', 'updated_at', 'id'])
    .execute();
  await db.schema
    .createIndex('lead_notes_lead_created_idx')
    .on('lead_notes')
    .columns(['organization_id', 'lead_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('lead_openings')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('profile', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('send_at', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lead_openings_pk', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('lead_openings_lead_idx')
    .on('lead_openings')
    .columns(['organization_id', 'lead_id', 'id'])
    .execute();
  await db.schema
    .createIndex('lead_openings_lead_updated_idx')
    .on('lead_openings')
    .columns(['organization_id', 'lead_id', 'updated_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('lead_openings').execute();
  await db.schema.dropIndex('lead_notes_lead_created_idx').execute();
  await db.schema.dropIndex('agent_turns_lead_updated_idx').execute();
  await db.schema.dropIndex('messages_lead_updated_idx').execute();
  await db.schema.alterTable('messages').dropColumn('schedule_follow_ups').execute();
  await db.schema.alterTable('messages').dropColumn('updated_at').execute();
}
