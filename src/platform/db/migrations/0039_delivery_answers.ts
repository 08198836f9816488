import type { Kysely } from 'kysely';

// Each attempt's answer of a webhook delivery (webhooks/delivery.ts), where last_status_code and
// last_error keep only the latest: one JSON line per attempt, {"at", "statusCode", "error"},
// appended by the same UPDATE that records the outcome (no extra round trip). A delivery has at
// most the retry schedule's length of attempts (a replay is a new delivery), so the text stays
// small. Null on deliveries attempted before 0039 (their last answer stands for them).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('answers', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').dropColumn('answers').execute();
}
