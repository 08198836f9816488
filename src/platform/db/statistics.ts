import { sql, type Kysely } from 'kysely';
import { dialectOf } from './connect.js';
import type { Database } from './schema.js';

/**
 * Refreshes the planner's statistics of a table that changes faster than
 * autovacuum analyses it: the delivery queue, and the leads table after a bulk
 * import (imports/importer.ts). A queue fills and
 * drains faster than PostgreSQL's autovacuum analyses it (once a minute at
 * best, after 10 % of the table changed), and with stale statistics the
 * claim of the oldest due rows was planned as a scan and sort of the whole
 * backlog instead of an ordered index scan stopping at the batch size: 12 ms
 * per claim at 8,000 pending rows, growing with the backlog. ANALYZE samples
 * the table and takes no lock that blocks reads or writes. SQLite's planner
 * needs no statistics for these queries: nothing to do there.
 */
export async function refreshStatistics(db: Kysely<Database>, table: 'webhook_deliveries' | 'leads'): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`analyze ${sql.table(table)}`.execute(db);
}
