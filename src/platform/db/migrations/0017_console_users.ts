import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../connect.js';

// The operator console (issue 16):
// - users: people who sign in to the console. An email belongs to one user in
//   the whole instance (the login form asks for no organization), kept lowercased.
//   password_hash holds scrypt's parameters and salt beside the hash (src/users/passwords.ts).
// - console_sessions: keyed by the SHA-256 digest of the cookie's token; the token
//   itself is never stored, so a read of this table cannot be replayed as a cookie.
// - console_reads: when a user last read a lead's conversation (unread markers).
// - lead search (GET /v1/leads?search=): lowercased first and last names, so a
//   name prefix is an index range. On PostgreSQL the expressions are in the "C"
//   collation: a prefix is then a byte range whatever the database's collation is.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('disabled_at', 'text')
    .addPrimaryKeyConstraint('users_pk', ['organization_id', 'id'])
    .addUniqueConstraint('users_email_uq', ['email'])
    .execute();

  await db.schema
    .createTable('console_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('console_sessions_user_idx')
    .on('console_sessions')
    .columns(['organization_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('console_reads')
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('lead_id', 'text', (c) => c.notNull())
    .addColumn('last_read_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('console_reads_pk', ['organization_id', 'user_id', 'lead_id'])
    .execute();

  const collate = dialectOf(db) === 'postgres' ? sql` collate "C"` : sql``;
  await sql`create index leads_first_name_lower_idx on leads (organization_id, (lower(first_name))${collate})`.execute(
    db,
  );
  await sql`create index leads_last_name_lower_idx on leads (organization_id, (lower(last_name))${collate})`.execute(
    db,
  );
  // Email prefix search: emails are matched lowercased (a person types them in any case).
  await sql`create index leads_email_lower_idx on leads (organization_id, (lower(email))${collate})`.execute(db);
  // Newest activity first (the console's inbox order), leads without activity last: one keyset on
  // (coalesce(last_activity_at, ''), id), so the order is the index's on both dialects.
  await sql`create index leads_activity_idx on leads (organization_id, (coalesce(last_activity_at, '')), id)`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [
    'leads_activity_idx',
    'leads_email_lower_idx',
    'leads_last_name_lower_idx',
    'leads_first_name_lower_idx',
  ]) {
    await db.schema.dropIndex(index).execute();
  }
  await db.schema.dropTable('console_reads').execute();
  await db.schema.dropTable('console_sessions').execute();
  await db.schema.dropTable('users').execute();
}
