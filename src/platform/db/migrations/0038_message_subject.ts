import type { Kysely } from 'kysely';

// An email's subject line, kept apart from its body (inbound/inbound.ts). Before, the subject was
// folded into `text` as "subject\n\nbody"; rows written then keep that text and a null subject, and
// every reader that showed the folded text still does (platform/db/folded-text.ts), so the public API
// reads the same for old and new rows. Null for SMS, voice and emails without a subject.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('subject', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').dropColumn('subject').execute();
}
