import type { Static } from '@sinclair/typebox';
import type { WorkingHours as WorkingHoursSchema } from './handoffs.schemas.js';
import { emitEvents } from '../events/outbox.repository.js';
import { handoffNotificationEvent } from '../events/payloads.js';
import { enqueueJob } from '../jobs/jobs.repository.js';
import { defaultChannel } from '../lead-records/channels.js';
import { requireLead, updateLead, type LeadRow } from '../lead-records/leads.repository.js';
import type { Deps } from '../platform/deps.js';
import { holdUntilCommit } from '../platform/db/locks.js';
import type { Db, HandoffStatus } from '../platform/db/schema.js';
import { DomainError, NotFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { normalizePhone } from '../platform/phone.js';
import { checkTimeZone } from '../platform/time-zone.js';
import { readSettings } from '../settings/settings.service.js';
import {
  findHandoff,
  findOpenHandoffOfLead,
  findRepRow,
  insertHandoff,
  listHandoffRows,
  listRepRows,
  ownedLeadCounts,
  recordFirstTouch,
  repLoads,
  setLeadOwner,
  updateHandoff,
  updateRepRow,
  type HandoffFilter,
  type HandoffRow,
  type RepRow,
} from '../handoff-records/handoffs.repository.js';
import { pickRep, type Load, type Rep, type WorkingHours } from './reps.js';

export const DEFAULT_ACK_MINUTES = 10;

export interface HandoffView {
  id: string;
  leadId: string;
  ownerId: string | null;
  raisedAt: string;
  reason: string | null;
  status: HandoffStatus;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  firstTouchAt: string | null;
  firstTouchKind: string | null;
  /** Seconds from the hand-off to the first human touch; null until then. */
  secondsToFirstTouch: number | null;
  escalationLevel: number;
  /** The lead's first and last name, in lists. */
  leadName?: string;
}

export const toHandoffView = (h: HandoffRow): HandoffView => ({
  id: h.id,
  leadId: h.lead_id,
  ownerId: h.owner_id,
  raisedAt: h.raised_at,
  reason: h.reason,
  status: h.status,
  acknowledgedAt: h.acknowledged_at,
  acknowledgedBy: h.acknowledged_by,
  firstTouchAt: h.first_touch_at,
  firstTouchKind: h.first_touch_kind,
  secondsToFirstTouch: h.first_touch_at ? (Date.parse(h.first_touch_at) - Date.parse(h.raised_at)) / 1000 : null,
  escalationLevel: h.escalation_level,
});

export function toRep(row: RepRow): Rep {
  return {
    id: row.id,
    isAway: row.is_away === 1,
    capacity: row.capacity,
    workingHours: row.working_hours ? (JSON.parse(row.working_hours) as WorkingHours) : null,
    timeZone: row.time_zone,
  };
}

export interface RepView {
  id: string;
  email: string;
  role: string;
  phone: string | null;
  capacity: number | null;
  workingHours: Static<typeof WorkingHoursSchema> | null;
  timeZone: string | null;
  isAway: boolean;
}

export const toRepView = (row: RepRow): RepView => ({
  id: row.id,
  email: row.email,
  role: row.role,
  phone: row.phone,
  capacity: row.capacity,
  workingHours: row.working_hours ? (JSON.parse(row.working_hours) as Static<typeof WorkingHoursSchema>) : null,
  timeZone: row.time_zone,
  isAway: row.is_away === 1,
});

const userNotFound = (id: string) => new NotFound('User', 'id', id);

/** The organization's assignment choice is made one transaction at a time: concurrent hand-offs see each other's counts. */
const lockAssignment = (trx: Db, organizationId: string) => holdUntilCommit(trx, `handoffs.assign:${organizationId}`);

/** Each rep's open hand-offs, last hand-off and owned leads. */
export async function loadsOf(db: Db, organizationId: string): Promise<Map<string, Load>> {
  const [loads, owned] = await Promise.all([repLoads(db, organizationId), ownedLeadCounts(db, organizationId)]);
  const map = new Map<string, Load>([...owned].map(([id, n]) => [id, { open: 0, lastAt: null, owned: n }]));
  for (const l of loads) map.set(l.owner_id, { open: l.open, lastAt: l.last_at, owned: owned.get(l.owner_id) ?? 0 });
  return map;
}

/** The available rep of the pool with the fewest open hand-offs (reps.ts pickRep); call under lockAssignment. */
async function chooseRep(
  trx: Db,
  organizationId: string,
  pool: readonly string[],
  now: Date,
  timeZone: string,
  exclude: readonly string[] = [],
): Promise<string | null> {
  if (pool.length === 0) return null;
  return pickRep(
    pool,
    (await listRepRows(trx, organizationId)).map(toRep),
    await loadsOf(trx, organizationId),
    now,
    timeZone,
    exclude,
  );
}

/**
 * Raises a hand-off of the lead, in the caller's transaction, under the
 * lead's lock (the agent's turn, or POST /v1/leads/{id}/handoff): the lead's
 * owner takes it when available, else round-robin picks one (settings
 * `assignment`); the owner is alerted at once (a job, which wakes the worker)
 * and an escalation is scheduled for when it should have been acknowledged.
 * A lead already handed off and not closed keeps its hand-off (no second alert).
 */
export async function raiseHandoff(
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  reason: string | null,
  now: Date,
): Promise<HandoffRow> {
  const existing = await findOpenHandoffOfLead(trx, organizationId, lead.id);
  if (existing) return existing;
  const at = now.toISOString();
  await lockAssignment(trx, organizationId);
  const settings = await readSettings(trx, organizationId);
  const assignment = settings.assignment;
  let ownerId: string | null = null;
  const current = lead.owner_id ? await findRepRow(trx, organizationId, lead.owner_id) : undefined;
  if (current && !current.disabled_at) ownerId = current.id;
  const currentAvailable =
    current && pickRep([current.id], [toRep(current)], new Map(), now, settings.timeZone) !== null;
  if (assignment.mode === 'roundRobin' && !currentAvailable)
    ownerId = (await chooseRep(trx, organizationId, assignment.pool, now, settings.timeZone)) ?? ownerId;
  const row: Omit<HandoffRow, 'organization_id'> = {
    id: newId(),
    lead_id: lead.id,
    owner_id: ownerId,
    raised_at: at,
    reason: reason?.trim() || null,
    acknowledged_at: null,
    acknowledged_by: null,
    first_touch_at: null,
    first_touch_kind: null,
    escalation_level: 0,
    status: 'open',
    updated_at: at,
  };
  await insertHandoff(trx, organizationId, row);
  if (ownerId !== lead.owner_id) await setLeadOwner(trx, organizationId, lead.id, ownerId, at);
  const ackMinutes = assignment.ackWithinMinutes ?? DEFAULT_ACK_MINUTES;
  await enqueueJob(trx, organizationId, 'handoff.alert', { handoffId: row.id, level: 0 }, now, at);
  await enqueueJob(
    trx,
    organizationId,
    'handoff.escalate',
    { handoffId: row.id, level: 1 },
    new Date(now.getTime() + ackMinutes * 60_000),
    at,
  );
  return { ...row, organization_id: organizationId };
}

/** Assignment on creation (settings `assignment.on: creation`), in the creating transaction. */
export async function assignOnCreation(trx: Db, organizationId: string, leadId: string, now: Date): Promise<void> {
  const settings = await readSettings(trx, organizationId);
  if (settings.assignment.mode !== 'roundRobin' || settings.assignment.on !== 'creation') return;
  await lockAssignment(trx, organizationId);
  const ownerId = await chooseRep(trx, organizationId, settings.assignment.pool, now, settings.timeZone);
  if (ownerId) await setLeadOwner(trx, organizationId, leadId, ownerId, now.toISOString());
}

/** API: hand the lead to a person, as the agent's handOff does (the AI is turned off, the `notification` webhook fires). */
export async function handOffLead(
  deps: Deps,
  organizationId: string,
  leadId: string,
  reason: string | null,
): Promise<HandoffView> {
  return deps.db.transaction().execute(async (trx) => {
    const lead = await requireLead(trx, organizationId, leadId, true);
    const now = deps.clock.now();
    const open = await findOpenHandoffOfLead(trx, organizationId, leadId);
    if (open) return toHandoffView(open);
    const h = await raiseHandoff(trx, organizationId, lead, reason, now);
    await emitEvents(trx, organizationId, now.toISOString(), [
      handoffNotificationEvent(lead, defaultChannel(lead), reason),
    ]);
    await updateLead(trx, organizationId, leadId, { is_ai_on: 0, updated_at: now.toISOString() });
    return toHandoffView(h);
  });
}

/** Acknowledge the lead's open hand-off: the first human touch if none came before. `by`: the user, when a console session acknowledges. */
export async function acknowledgeHandoff(
  deps: Deps,
  organizationId: string,
  leadId: string,
  by: string | null,
): Promise<HandoffView> {
  return deps.db.transaction().execute(async (trx) => {
    await requireLead(trx, organizationId, leadId, true);
    const h = await findOpenHandoffOfLead(trx, organizationId, leadId);
    if (!h) throw new NotFound('Hand-off of lead', 'id', leadId);
    if (h.acknowledged_at) return toHandoffView(h);
    const at = deps.clock.now().toISOString();
    const patch = {
      acknowledged_at: at,
      acknowledged_by: by,
      status: 'acknowledged' as const,
      updated_at: at,
      first_touch_at: h.first_touch_at ?? at,
      first_touch_kind: h.first_touch_kind ?? 'acknowledgement',
    };
    await updateHandoff(trx, organizationId, h.id, patch);
    return toHandoffView({ ...h, ...patch });
  });
}

/** Close the lead's hand-off (the person is done with it): it no longer counts against its owner's capacity. */
export async function closeHandoff(deps: Deps, organizationId: string, leadId: string): Promise<HandoffView> {
  return deps.db.transaction().execute(async (trx) => {
    await requireLead(trx, organizationId, leadId, true);
    const h = await findOpenHandoffOfLead(trx, organizationId, leadId);
    if (!h) throw new NotFound('Hand-off of lead', 'id', leadId);
    const at = deps.clock.now().toISOString();
    await lockAssignment(trx, organizationId);
    await updateHandoff(trx, organizationId, h.id, { status: 'closed', updated_at: at });
    return toHandoffView({ ...h, status: 'closed', updated_at: at });
  });
}

/** A human touched the lead (a reply sent through the API, a call): the first such touch of its open hand-off is recorded. */
export async function noteHumanTouch(
  db: Db,
  organizationId: string,
  leadId: string,
  kind: 'reply' | 'call',
  at: string,
): Promise<void> {
  await recordFirstTouch(db, organizationId, leadId, kind, at);
}

/** PUT /v1/leads/{id}/owner: null clears it. The open hand-off follows the lead's owner. */
export async function setOwner(
  deps: Deps,
  organizationId: string,
  leadId: string,
  userId: string | null,
): Promise<{ leadId: string; owner: string | null }> {
  return deps.db.transaction().execute(async (trx) => {
    await requireLead(trx, organizationId, leadId, true);
    if (userId !== null) {
      const user = await findRepRow(trx, organizationId, userId);
      if (!user)
        throw new DomainError('unknown_user', { detail: `userId: no user with id ${userId} in this organization` });
      if (user.disabled_at) throw new DomainError('unknown_user', { detail: `userId: the user ${userId} is disabled` });
    }
    const at = deps.clock.now().toISOString();
    await lockAssignment(trx, organizationId);
    await setLeadOwner(trx, organizationId, leadId, userId, at);
    const h = await findOpenHandoffOfLead(trx, organizationId, leadId);
    if (h && h.owner_id !== userId)
      await updateHandoff(trx, organizationId, h.id, { owner_id: userId, updated_at: at });
    return { leadId, owner: userId };
  });
}

export interface RepInput {
  phone?: string | null;
  capacity?: number | null;
  workingHours?: WorkingHours | null;
  timeZone?: string | null;
  isAway?: boolean;
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

export async function updateRep(deps: Deps, organizationId: string, id: string, input: RepInput): Promise<RepView> {
  const row = await findRepRow(deps.db, organizationId, id);
  if (!row) throw userNotFound(id);
  const patch: Parameters<typeof updateRepRow>[3] = {};
  if (input.phone !== undefined)
    patch.phone = input.phone === null ? null : normalizePhone(input.phone, deps.config.defaultCountry, 'phone');
  if (input.capacity !== undefined) patch.capacity = input.capacity;
  if (input.timeZone !== undefined) patch.time_zone = input.timeZone === null ? null : checkTimeZone(input.timeZone);
  if (input.isAway !== undefined) patch.is_away = input.isAway ? 1 : 0;
  if (input.workingHours !== undefined) {
    const h = input.workingHours;
    if (h && toMinutes(h.start) === toMinutes(h.end))
      throw new DomainError('bad_request', {
        detail: 'workingHours: start and end must differ (leave workingHours null for any time)',
      });
    patch.working_hours =
      h === null ? null : JSON.stringify({ days: [...new Set(h.days)], start: h.start, end: h.end });
  }
  if (Object.keys(patch).length > 0) await updateRepRow(deps.db, organizationId, id, patch);
  return toRepView({ ...row, ...patch } as RepRow);
}

export async function listReps(deps: Deps, organizationId: string): Promise<RepView[]> {
  return (await listRepRows(deps.db, organizationId)).map(toRepView);
}

export async function getRep(deps: Deps, organizationId: string, id: string): Promise<RepView> {
  const row = await findRepRow(deps.db, organizationId, id);
  if (!row) throw userNotFound(id);
  return toRepView(row);
}

export interface TouchStats {
  count: number;
  touched: number;
  p50Seconds: number | null;
  p90Seconds: number | null;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  // biome-ignore lint/style/noNonNullAssertion: the index is clamped to 0..length-1 and sorted is not empty
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function statsOf(rows: HandoffView[]): TouchStats {
  const seconds = rows
    .map((r) => r.secondsToFirstTouch)
    .filter((s): s is number => s !== null)
    .sort((a, b) => a - b);
  return {
    count: rows.length,
    touched: seconds.length,
    p50Seconds: percentile(seconds, 50),
    p90Seconds: percentile(seconds, 90),
  };
}

export const MAX_LISTED_HANDOFFS = 10_000;

/** GET /v1/handoffs: the hand-offs raised in [from, to), newest first, and the time to the first human touch, overall and per owner. */
export async function listHandoffs(deps: Deps, organizationId: string, f: HandoffFilter) {
  const rows = (await listHandoffRows(deps.db, organizationId, f, MAX_LISTED_HANDOFFS)).map((r) => ({
    ...toHandoffView(r),
    leadName: [r.first_name, r.last_name].filter(Boolean).join(' '),
  }));
  const owners = new Map<string | null, HandoffView[]>();
  for (const r of rows) owners.set(r.ownerId, [...(owners.get(r.ownerId) ?? []), r]);
  return {
    handoffs: rows,
    stats: {
      overall: statsOf(rows),
      byOwner: [...owners.entries()].map(([ownerId, list]) => ({ ownerId, ...statsOf(list) })),
    },
  };
}

export { findHandoff };
