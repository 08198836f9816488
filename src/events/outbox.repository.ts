import { sql } from 'kysely';
import type { Db } from '../platform/db/schema.js';
import { DISPATCHED_MARK } from '../platform/db/wake.js';
import { skipLocked } from '../platform/db/locks.js';
import { newId } from '../platform/ids.js';
import { keysIn } from '../platform/db/keys.js';

export type EventType =
  | 'optOut'
  | 'resubscribed'
  | 'doNotContact'
  | 'message.sent'
  | 'message.received'
  | 'lead.additionalInfo.updated'
  | 'leadTagged'
  | 'notification'
  | 'message.delivered'
  | 'message.failed'
  | 'campaign.paused'
  | 'sendingNumber.unusable'
  | 'lead.created'
  | 'call.completed'
  | 'call.transferred'
  | 'appointment.booked'
  | 'appointment.rescheduled'
  | 'appointment.cancelled';

export interface OutboxEvent {
  type: EventType;
  data: Record<string, unknown>;
}

/** The lead an event is about, kept beside its payload and copied onto its deliveries (0045). */
const leadOf = (data: Record<string, unknown>): string | null => (typeof data.leadId === 'string' ? data.leadId : null);

/**
 * Writes events into the outbox with the same `db` handle as the state change
 * that causes them: pass the open transaction, and the event commits or rolls
 * back with the change. Delivery reads this table later; nothing is sent here.
 */
export async function emitEvents(db: Db, organizationId: string, at: string, events: OutboxEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const { query, ids } = eventsInsert(db, organizationId, at, events);
  await query.execute();
  return ids;
}

/** The same insert, unexecuted, for a caller that sends it with its other writes (at least one event). */
export function eventsInsert(db: Db, organizationId: string, at: string, events: OutboxEvent[]) {
  const rows = events.map((e) => ({
    organization_id: organizationId,
    id: newId(),
    type: e.type,
    payload: JSON.stringify(e.data),
    created_at: at,
    dispatched_at: null,
    lead_id: leadOf(e.data),
  }));
  return { query: db.insertInto('events').values(rows), ids: rows.map((r) => r.id) };
}

/**
 * Events only the console's live stream shows (console-api/event-hub.ts reads the
 * events table): no webhook carries them and they cannot be subscribed to.
 * `call.utterance`: one utterance of a call in progress, as it is stored.
 */
export type ConsoleEventType = 'call.utterance';

/** A console-only event, recorded already dispatched (emitDispatched) so the webhook dispatcher never fans it out. */
export async function emitConsoleEvent(
  db: Db,
  organizationId: string,
  at: string,
  type: ConsoleEventType,
  data: Record<string, unknown>,
): Promise<void> {
  await emitDispatched(db, organizationId, at, [{ type, data }]);
}

/**
 * Events whose fan-out the caller writes in the same transaction
 * (webhooks/dispatcher.ts emitFannedOut): stored already dispatched, and
 * marked so their commit wakes no worker (platform/db/wake.ts): nobody has
 * anything left to do with them. Answers the rows written.
 */
export async function emitDispatched(
  db: Db,
  organizationId: string,
  at: string,
  events: (OutboxEvent | { type: ConsoleEventType; data: Record<string, unknown> })[],
): Promise<PendingEvent[]> {
  if (events.length === 0) return [];
  const rows = events.map((e) => ({
    organization_id: organizationId,
    id: newId(),
    type: e.type,
    payload: JSON.stringify(e.data),
    created_at: at,
    dispatched_at: at,
    lead_id: leadOf(e.data),
  }));
  await db.insertInto('events').values(rows).modifyEnd(sql.raw(DISPATCHED_MARK)).execute();
  return rows.map((r) => ({ organization_id: r.organization_id, id: r.id, type: r.type, lead_id: r.lead_id }));
}

export interface PendingEvent {
  organization_id: string;
  id: string;
  type: string;
  /** The lead it is about, copied onto its deliveries. */
  lead_id: string | null;
}

/**
 * Whether any event waits to be dispatched: one indexed probe outside a
 * transaction, so an idle worker's poll costs one round trip, not three
 * (BEGIN, the locking claim, COMMIT).
 */
export async function hasUndispatched(db: Db): Promise<boolean> {
  const row = await db.selectFrom('events').select('id').where('dispatched_at', 'is', null).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Undispatched events, oldest first, claimed for this worker's transaction (others skip them). */
export async function claimUndispatched(trx: Db, limit: number): Promise<PendingEvent[]> {
  const q = trx
    .selectFrom('events')
    .select(['organization_id', 'id', 'type', 'lead_id'])
    .where('dispatched_at', 'is', null)
    .orderBy('id')
    .limit(limit);
  return skipLocked(trx, q).execute();
}

export async function markDispatched(trx: Db, events: readonly PendingEvent[], at: string): Promise<void> {
  await trx.updateTable('events').set({ dispatched_at: at }).where(keysIn(events)).execute();
}

/**
 * Erasure of a lead (lead-records/leads.repository.ts `deleteLeadData`): every event
 * about it keeps its row, with the payload replaced by `{"leadId":"<id>","erased":true}`.
 * The row stays because webhook deliveries reference it by `event_id` (an
 * endpoint's delivery history keeps its rows, and a receiver may already hold
 * the event id). An event not yet dispatched or delivered, or a delivery
 * replayed later, then carries only this stub: once the lead is erased, nothing
 * personal about it leaves the service, while receivers can still tell which
 * of their records to erase.
 *
 * Payloads are JSON stored as TEXT on both dialects, written by JSON.stringify
 * (no whitespace), so the lead is matched by a LIKE on `"leadId":"<uuid>"`
 * instead of a dialect's JSON operators. A UUID holds no LIKE metacharacter
 * (`%`, `_`, and no backslash), so it goes into the pattern unescaped; the
 * check below refuses anything else rather than match too much.
 */
export async function eraseLeadEvents(db: Db, organizationId: string, leadId: string): Promise<number> {
  if (!/^[0-9a-f-]{36}$/i.test(leadId)) throw new Error(`eraseLeadEvents: not a UUID: ${leadId}`);
  const res = await db
    .updateTable('events')
    .set({ payload: JSON.stringify({ leadId, erased: true }) })
    .where('organization_id', '=', organizationId)
    .where('payload', 'like', `%"leadId":"${leadId}"%`)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
