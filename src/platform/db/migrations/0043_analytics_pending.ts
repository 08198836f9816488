import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../connect.js';

// Analytics counts through an append-only table (src/analytics-records/pending.repository.ts,
// docs/analytics.md): a state change inserts one row here instead of upserting the
// organization's shared rollup rows, which every concurrent lead creation and send completion
// of an organization would otherwise lock until its commit (on PostgreSQL a burst queued on
// them). The worker, and every report before it reads, folds the rows into the rollups.
// - id: the fold takes the oldest rows in batches.
// - target: the rollup table; cells: JSON array of that table's key rows; counter, amount: what to add.
export async function up(db: Kysely<any>): Promise<void> {
  const id =
    dialectOf(db) === 'sqlite'
      ? 'integer primary key autoincrement'
      : 'bigint generated always as identity primary key';
  await sql
    .raw(`create table analytics_pending (id ${id}, organization_id text not null, target text not null,
    cells text not null, counter text not null, amount integer not null)`)
    .execute(db);
  await db.schema
    .createIndex('analytics_pending_org')
    .on('analytics_pending')
    .columns(['organization_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('analytics_pending').execute();
}
