import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../connect.js';

// Email prefix search (GET /v1/leads?search=) reads the stored email instead of lower(email):
// every writer stores emails lowercased (leads.service.ts, imports/rows.ts), so the two are the
// same string, and the separate expression index cost every lead insert a fifth random-key index.
// At a million leads that index was a quarter of a bulk import's page writes: a bare batched
// INSERT into SQLite went from 7,650 to 10,908 rows/s without it (bench/README.md).
// - SQLite: leads_email_id_idx (organization_id, email, id) already serves the prefix as a range
//   (BINARY collation: byte order).
// - PostgreSQL: that index is in the database's collation, where strings with one prefix need not
//   be contiguous; the prefix index stays, on the column itself in the "C" collation.
// Emails stored before writers lowercased them (none are expected) are lowercased here, so the
// search finds every lead it found before.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`update leads set email = lower(email) where email <> lower(email)`.execute(db);
  await db.schema.dropIndex('leads_email_lower_idx').execute();
  if (dialectOf(db) === 'postgres')
    await sql`create index leads_email_prefix_idx on leads (organization_id, (email collate "C"))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db) === 'postgres') await db.schema.dropIndex('leads_email_prefix_idx').execute();
  const collate = dialectOf(db) === 'postgres' ? sql` collate "C"` : sql``;
  await sql`create index leads_email_lower_idx on leads (organization_id, (lower(email))${collate})`.execute(db);
}
