import type { Kysely } from 'kysely';

// Live calls (src/calls/, docs/voice.md): a phone conversation held by the agent over Twilio's
// ConversationRelay. What was said is stored as voice messages; this row is the call itself.
// - calls: one per call, placed (direction outbound) or answered (inbound). `status` is where it
//   stands (blocked, waiting, dialing, queued, ringing, in-progress, completed, failed); `outcome`
//   what became of it (human, voicemail, no-answer, busy, failed, canceled, transferred,
//   opted-out). `follow_up_step`: the follow-up step a call is (null otherwise). `greeting` is what the agent says first; `provider_call_id` is Twilio's CallSid; `handoff_data` the relay's handoffData
//   (JSON text) when the agent transferred the call; `transfer_to` the number it was put through to.
// - profile_voice: a profile's call settings (voice, language, welcome greeting, voicemail,
//   transfer number) as JSON text, keyed by the profile's name (which never changes); none: defaults.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('calls')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text')
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_code', 'text')
    .addColumn('status_reason', 'text')
    .addColumn('outcome', 'text')
    .addColumn('provider_call_id', 'text')
    .addColumn('from_number', 'text')
    .addColumn('to_number', 'text')
    .addColumn('voicemail_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('started_at', 'text')
    .addColumn('answered_at', 'text')
    .addColumn('ended_at', 'text')
    .addColumn('duration_seconds', 'integer')
    .addColumn('greeting', 'text')
    .addColumn('summary', 'text')
    .addColumn('handoff_data', 'text')
    .addColumn('transfer_to', 'text')
    .addColumn('completed_event_at', 'text')
    .addColumn('follow_up_step', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('calls_pk', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('calls_lead_idx')
    .on('calls')
    .columns(['organization_id', 'lead_id', 'created_at'])
    .execute();
  // The lead's timeline pages its calls by (updated_at, id).
  await db.schema
    .createIndex('calls_timeline_idx')
    .on('calls')
    .columns(['organization_id', 'lead_id', 'updated_at', 'id'])
    .execute();
  await db.schema
    .createIndex('calls_provider_idx')
    .on('calls')
    .columns(['organization_id', 'provider_call_id'])
    .execute();
  await db.schema
    .createTable('profile_voice')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('profile_name', 'text', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('profile_voice_pk', ['organization_id', 'profile_name'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('profile_voice').execute();
  await db.schema.dropTable('calls').execute();
}
