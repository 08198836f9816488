import type { Kysely } from 'kysely';

// One row per AI turn, keyed by the inbound message that triggered it, written with
// that message (pending): a job that runs again (retry, lapsed lease) finds its turn
// finished and never replies twice, a newer turn tells an older one to stand down,
// and a turn that failed for good stays visible with its error.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('agent_turns')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('trigger_message_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('actions', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('agent_turns_pk', ['organization_id', 'id'])
    .addUniqueConstraint('agent_turns_trigger_uq', ['organization_id', 'trigger_message_id'])
    .execute();
  await db.schema
    .createIndex('agent_turns_lead_idx')
    .on('agent_turns')
    .columns(['organization_id', 'lead_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('agent_turns').execute();
}
