import { sql, type Kysely } from 'kysely';

// Lead listing and tags (GET /v1/leads, PUT /v1/leads/{leadId}/tags):
// - leads_created_idx: keyset pages in createdAt order (updatedAt has leads_updated_idx since 0001).
// - deleted_leads: what the list shows of an erased lead, its id, when it was created and when it
//   was erased; nothing personal (the erasure keeps nothing else, lead-records/leads.repository.ts).
// - tags: the organization's tags, one id per name. A tag id was the id of one tag on one lead;
//   replacing a lead's tags by ids needs ids that outlive a lead, so the same tag on two leads now
//   has one id. lead_tags keeps a copy of name and condition (what the lead view reads) and is
//   keyed (organization_id, lead_id, id). Existing tags of one name are merged under its
//   smallest id.
// Portable statements only: lead_tags is rebuilt (SQLite cannot change a primary key in place).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('leads_created_idx')
    .on('leads')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('deleted_leads')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('deleted_leads_pk', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('deleted_leads_created_idx')
    .on('deleted_leads')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('deleted_leads_deleted_idx')
    .on('deleted_leads')
    .columns(['organization_id', 'deleted_at', 'id'])
    .execute();

  await db.schema
    .createTable('tags')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('condition', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tags_pk', ['organization_id', 'id'])
    .addUniqueConstraint('tags_name_uq', ['organization_id', 'name'])
    .execute();
  await sql`insert into tags (organization_id, id, name, condition, created_at)
    select organization_id, min(id), name, min(condition), min(created_at) from lead_tags group by organization_id, name`.execute(
    db,
  );

  await db.schema
    .createTable('lead_tags_by_lead')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('condition', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lead_tags_by_lead_pk', ['organization_id', 'lead_id', 'id'])
    .execute();
  await sql`insert into lead_tags_by_lead (organization_id, lead_id, id, name, condition, created_at)
    select lt.organization_id, lt.lead_id, t.id, t.name, t.condition, min(lt.created_at)
    from lead_tags lt join tags t on t.organization_id = lt.organization_id and t.name = lt.name
    group by lt.organization_id, lt.lead_id, t.id, t.name, t.condition`.execute(db);
  await db.schema.dropTable('lead_tags').execute();
  await db.schema.alterTable('lead_tags_by_lead').renameTo('lead_tags').execute();
}
