import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.js';

/**
 * The installation's secret called `name`, created on first use. Insert with
 * "on conflict do nothing", then read: when several processes start at once
 * on one database, exactly one insert wins and every process reads that one
 * value, so what one process signs every other verifies, before and after a
 * restart.
 */
export async function instanceSecret(db: Kysely<Database>, name: string, now: Date = new Date()): Promise<string> {
  const found = await db.selectFrom('instance_secrets').select('value').where('name', '=', name).executeTakeFirst();
  if (found) return found.value;
  await db
    .insertInto('instance_secrets')
    .values({ name, value: randomBytes(32).toString('base64url'), created_at: now.toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db
    .selectFrom('instance_secrets')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.value;
}
