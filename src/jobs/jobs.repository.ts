import type { Kysely } from 'kysely';
import { byKeys, claimDue } from '../platform/db/claim.js';
import type { Database, Db } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { newId } from '../platform/ids.js';
import type { ClaimedJob, JobName, JobPayloads } from './names.js';

/**
 * Enqueue with the same `db` handle as the change that causes the job: inside
 * the request's transaction it commits or vanishes with that change.
 */
export async function enqueueJob<N extends JobName>(db: Db, organizationId: string, name: N, payload: JobPayloads[N], runAt: Date, now: string): Promise<string> {
  const id = newId();
  await db
    .insertInto('jobs')
    .values({
      organization_id: organizationId,
      id,
      name,
      payload: JSON.stringify(payload),
      status: 'pending',
      run_at: runAt.toISOString(),
      attempts: 0,
      lease_until: null,
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

export async function claimJobs(deps: Deps, limit: number): Promise<ClaimedJob[]> {
  const now = deps.clock.now();
  // A job's lease must outlive its slowest call (a model turn), or a second worker would run it concurrently.
  const leaseMs = Math.max(deps.config.leaseMs, 2 * deps.config.ai.timeoutMs, 2 * deps.config.webhookTimeoutMs);
  const ids = await claimDue(deps.db, 'jobs', 'run_at', now.toISOString(), new Date(now.getTime() + leaseMs).toISOString(), limit);
  if (ids.length === 0) return [];
  const rows = await deps.db.selectFrom('jobs').selectAll().where(byKeys(ids)).execute();
  return rows.map((r) => ({ organizationId: r.organization_id, id: r.id, name: r.name, payload: JSON.parse(r.payload), attempts: r.attempts }));
}

export async function finishJob(db: Kysely<Database> | Db, job: ClaimedJob, now: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ status: 'done', attempts: job.attempts + 1, lease_until: null, updated_at: now })
    .where('organization_id', '=', job.organizationId)
    .where('id', '=', job.id)
    .execute();
}

/** Moves the job to a later time without counting a failure (e.g. waiting for contact hours). */
export async function deferJob(db: Db, job: ClaimedJob, runAt: Date, now: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ run_at: runAt.toISOString(), lease_until: null, updated_at: now })
    .where('organization_id', '=', job.organizationId)
    .where('id', '=', job.id)
    .execute();
}

/** A failed attempt: retried after the next delay of the schedule, or marked failed when it is spent. */
export async function failJob(db: Db, job: ClaimedJob, error: string, retryDelaysMs: number[], now: Date): Promise<'retry' | 'failed'> {
  const attempts = job.attempts + 1;
  const delay = retryDelaysMs[attempts - 1];
  const base = { attempts, lease_until: null, last_error: error.slice(0, 1000), updated_at: now.toISOString() };
  const patch = delay === undefined ? { ...base, status: 'failed' as const } : { ...base, run_at: new Date(now.getTime() + delay).toISOString() };
  await db.updateTable('jobs').set(patch).where('organization_id', '=', job.organizationId).where('id', '=', job.id).execute();
  return delay === undefined ? 'failed' : 'retry';
}
