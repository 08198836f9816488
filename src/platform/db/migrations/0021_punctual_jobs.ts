import { sql, type Kysely } from 'kysely';

// A job due at an exact instant (a paced send deferred to its sending slot) is claimed ahead of
// older due jobs (src/jobs/jobs.repository.ts claimJobs). Jobs were claimed oldest due first
// only, so behind a backlog of first claims all due at once (a campaign's or an import's
// openings) a send whose slot came waited until the backlog drained, missed its slot by
// seconds and had to take a fresh one at the end of the schedule.
// - jobs.punctual: 1 for such a job while it waits or runs, 0 otherwise (set back to 0 when
//   the job finishes, fails or is deferred for any other reason).
// - jobs_punctual_due_idx: only the punctual jobs, in due order, so the extra claim that looks
//   for them reads nothing else however long the queue.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('jobs')
    .addColumn('punctual', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('jobs_punctual_due_idx')
    .on('jobs')
    .columns(['status', 'run_at'])
    .where(sql.ref('punctual'), '=', sql.lit(1))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_punctual_due_idx').execute();
  await db.schema.alterTable('jobs').dropColumn('punctual').execute();
}
