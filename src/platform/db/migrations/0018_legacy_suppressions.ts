import { sql, type Kysely } from 'kysely';

// Opt-outs recorded before addresses were keyed (0007) stay as unkeyed SHA-256 digests
// when their lead was erased; no new one is ever written. A lookup of many addresses
// (a CSV import's batch) asks first whether the organization has any: almost never, and
// then it probes one digest per address instead of two. This partial index answers that
// question without reading the organization's other opt-outs.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('suppressions_legacy_idx')
    .on('suppressions')
    .column('organization_id')
    .where(sql.ref('digest_kind'), '=', 'sha256')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('suppressions_legacy_idx').execute();
}
