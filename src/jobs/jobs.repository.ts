import { mentions } from '../platform/db/text.js';
import { randomUUID } from 'node:crypto';
import { sql, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import { withLock } from '../platform/db/locks.js';
import { claimDue } from '../platform/db/claim.js';
import type { Database, Db, JobsTable } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { newId } from '../platform/ids.js';
import type { ClaimedJob, JobName, JobPayloads, SendMessagePayload } from './names.js';

/**
 * Enqueue with the same `db` handle as the change that causes the job: inside
 * the request's transaction it commits or vanishes with that change.
 */
export async function enqueueJob<N extends JobName>(
  db: Db,
  organizationId: string,
  name: N,
  payload: JobPayloads[N],
  runAt: Date,
  now: string,
): Promise<string> {
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

/** The lane of jobs due at an exact instant; a literal, so both dialects use the partial index that holds only them (0021). */
const PUNCTUAL = sql<SqlBool>`punctual = 1`;
const NOT_PUNCTUAL = sql<SqlBool>`punctual = 0`;

/**
 * Leases up to `limit` due jobs: first those due at an exact instant (paced
 * sends whose slot came), then the rest, oldest due first. In one due order a
 * backlog of first claims all due at the same moment (a campaign's openings)
 * would make every send whose slot passed meanwhile wait for the whole
 * backlog, miss its slot and take a fresh one. The punctual lane is bounded
 * by the sending numbers' rates, so it cannot starve the rest.
 */
export async function claimJobs(deps: Deps, limit: number): Promise<ClaimedJob[]> {
  const now = deps.clock.now();
  // A job's lease must outlive its slowest call (a model turn), or a second worker would run it concurrently.
  const leaseMs = Math.max(deps.config.leaseMs, 2 * deps.config.ai.timeoutMs, 2 * deps.config.webhookTimeoutMs);
  const leaseToken = randomUUID();
  // Each claimed row comes back whole from the claiming statement: no second read of the jobs. Both
  // lanes in one statement: a claim per lane cost every tick two.
  const rows = (await claimDue(
    deps.db,
    'jobs',
    'run_at',
    now.toISOString(),
    new Date(now.getTime() + leaseMs).toISOString(),
    limit,
    { fence: leaseToken, lanes: { ahead: PUNCTUAL, rest: NOT_PUNCTUAL }, whole: true },
  )) as unknown as JobsTable[];
  // The statement returns rows in update order, not lane order: the punctual ones run first.
  rows.sort((a, b) => Number(b.punctual) - Number(a.punctual));
  return rows.map((r) => ({
    organizationId: r.organization_id,
    id: r.id,
    name: r.name,
    ...readPayload(r.payload),
    attempts: r.attempts,
    leaseToken,
  }));
}

/**
 * When the next paced send waits for its slot: the earliest `run_at` of a pending punctual job nobody holds
 * (a claimed one is running, and the worker's step waits for it anyway). Read through the partial index of
 * punctual jobs (0021), so it reads none of the rest of the queue.
 */
export async function nextPunctualDue(db: Db): Promise<Date | undefined> {
  const row = await db
    .selectFrom('jobs')
    .select('run_at')
    .where(PUNCTUAL)
    .where('status', '=', 'pending')
    .where('lease_until', 'is', null)
    .orderBy('run_at')
    .limit(1)
    .executeTakeFirst();
  return row ? new Date(row.run_at) : undefined;
}

/** One unreadable row must fail its own job, not the claim that brought fifteen good ones with it. */
function readPayload(text: string): Pick<ClaimedJob, 'payload' | 'unreadable'> {
  try {
    return { payload: JSON.parse(text) };
  } catch (err) {
    return { payload: undefined, unreadable: `unreadable payload: ${(err as Error).message}` };
  }
}

/** The fence: whether this claim still holds the job (not lapsed, not claimed again by another worker). Locks the row until commit. */
export async function holdsLease(
  db: Db,
  job: Pick<ClaimedJob, 'organizationId' | 'id' | 'leaseToken'>,
  now: string,
): Promise<boolean> {
  const q = db
    .selectFrom('jobs')
    .select('id')
    .where('organization_id', '=', job.organizationId)
    .where('id', '=', job.id)
    .where('lease_token', '=', job.leaseToken)
    .where('status', '=', 'pending')
    .where('lease_until', '>', now);
  return (await withLock(db, q, 'update').executeTakeFirst()) !== undefined;
}

/** Only the claim that holds the job may move it on: a worker whose lease lapsed and was claimed again writes nothing. */
const fenced = (job: ClaimedJob) => (eb: ExpressionBuilder<Database, 'jobs'>) =>
  eb.and([
    eb('organization_id', '=', job.organizationId),
    eb('id', '=', job.id),
    eb('lease_token', '=', job.leaseToken),
  ]);

export async function finishJob(db: Kysely<Database> | Db, job: ClaimedJob, now: string): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ status: 'done', attempts: job.attempts + 1, lease_until: null, punctual: 0, updated_at: now })
    .where(fenced(job))
    .execute();
}

/** Moves the job to a later time without counting a failure (e.g. waiting for contact hours); `punctual`: claimJobs. */
export async function deferJob(db: Db, job: ClaimedJob, runAt: Date, now: string, punctual = false): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ run_at: runAt.toISOString(), lease_until: null, punctual: punctual ? 1 : 0, updated_at: now })
    .where(fenced(job))
    .execute();
}

/** A failed attempt: retried after the next delay of the schedule, or marked failed when it is spent. */
export async function failJob(
  db: Db,
  job: ClaimedJob,
  error: string,
  retryDelaysMs: number[],
  now: Date,
): Promise<'retry' | 'failed'> {
  const attempts = job.attempts + 1;
  const delay = retryDelaysMs[attempts - 1];
  // A retry waits its delay like any job: it has no instant left to keep.
  const base = {
    attempts,
    lease_until: null,
    punctual: 0,
    last_error: error.slice(0, 1000),
    updated_at: now.toISOString(),
  };
  const patch =
    delay === undefined
      ? { ...base, status: 'failed' as const }
      : { ...base, run_at: new Date(now.getTime() + delay).toISOString() };
  await db.updateTable('jobs').set(patch).where(fenced(job)).execute();
  return delay === undefined ? 'failed' : 'retry';
}

/**
 * Erasure of a lead: the queue's history about it. Finished jobs (done,
 * failed) whose payload names the lead are deleted; pending ones stay, they
 * carry ids only (jobs/names.ts) and find no lead when they run. Payloads are
 * JSON text: a LIKE on the id, which as a UUID holds no LIKE metacharacter.
 */
export async function deleteFinishedJobsOf(db: Db, organizationId: string, leadId: string): Promise<number> {
  if (!/^[0-9a-f-]{36}$/i.test(leadId)) throw new Error(`deleteFinishedJobsOf: not a UUID: ${leadId}`);
  const res = await db
    .deleteFrom('jobs')
    .where('organization_id', '=', organizationId)
    .where('status', '!=', 'pending')
    .where('payload', 'like', `%${leadId}%`)
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/**
 * Erasure of a lead: error texts that quote one of its addresses (a provider's
 * "The 'To' number +1... is not valid", an SMTP rejection quoting the address),
 * on any job, e.g. the `message.send` of a message whose payload holds only its id.
 */
export async function clearJobErrorsMentioning(
  db: Db,
  organizationId: string,
  addresses: readonly string[],
): Promise<number> {
  if (addresses.length === 0) return 0;
  const res = await db
    .updateTable('jobs')
    .set({ last_error: null })
    .where('organization_id', '=', organizationId)
    .where((eb) => eb.or(addresses.map((a) => mentions('last_error', a))))
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

/**
 * The payload of the latest `message.send` job of a message: an operator's
 * resend (channels/in-doubt.ts) is judged with the flags it was sent with.
 * Payloads are JSON text: a LIKE on the id, which as a UUID holds no LIKE metacharacter.
 */
export async function latestSendPayload(
  db: Db,
  organizationId: string,
  messageId: string,
): Promise<SendMessagePayload | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(messageId)) return undefined;
  const row = await db
    .selectFrom('jobs')
    .select('payload')
    .where('organization_id', '=', organizationId)
    .where('name', '=', 'message.send')
    .where('payload', 'like', `%${messageId}%`)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return row ? (JSON.parse(row.payload) as SendMessagePayload) : undefined;
}
