import type { Selectable } from 'kysely';
import type {
  AgentTurnsTable,
  AppointmentsTable,
  CallsTable,
  Db,
  LeadNotesTable,
  LeadOpeningsTable,
  MessagesTable,
  SendChecksTable,
} from '../platform/db/schema.js';

/** Where a page starts: after this (time, id), in the timeline's order. */
export interface TimelineCursor {
  at: string;
  id: string;
}

export interface SourceQuery {
  organizationId: string;
  leadId: string;
  /** Rows whose time is at or after it. */
  since: string;
  after: TimelineCursor | undefined;
  /** At most this many rows (the caller asks one more than a page to know whether more exist). */
  limit: number;
}

/**
 * Every source of the timeline is read the same way: one lead's rows at or
 * after `since`, strictly after the cursor in (time, id) order, oldest first,
 * on an index (organization_id, lead_id, time, id) (migration 0011). A page
 * costs the same whatever the length of the history: never OFFSET.
 */
function keyset<Q extends { where: (...args: any[]) => Q }>(q: Q, column: string, s: SourceQuery): Q {
  let out = q.where(column, '>=', s.since);
  const after = s.after;
  if (after)
    out = out.where((eb: any) =>
      eb.or([eb(column, '>', after.at), eb.and([eb(column, '=', after.at), eb('id', '>', after.id)])]),
    );
  return out;
}

export type TimelineMessageRow = Selectable<MessagesTable>;

/** Messages of the given channels that were not blocked, and (when `blocked`) the sends the gate stopped, in updated_at order. */
export async function messagesPage(
  db: Db,
  s: SourceQuery,
  filter: { channels: MessagesTable['channel'][]; blocked: boolean },
): Promise<TimelineMessageRow[]> {
  let q = db
    .selectFrom('messages')
    .selectAll()
    .where('organization_id', '=', s.organizationId)
    .where('lead_id', '=', s.leadId);
  q = q.where((eb) => {
    const parts = [];
    if (filter.channels.length > 0)
      parts.push(eb.and([eb('status', '!=', 'blocked'), eb('channel', 'in', filter.channels)]));
    if (filter.blocked) parts.push(eb('status', '=', 'blocked'));
    return eb.or(parts);
  });
  return keyset(q, 'updated_at', s).orderBy('updated_at').orderBy('id').limit(s.limit).execute();
}

export type TimelineTurnRow = Selectable<AgentTurnsTable>;

export async function turnsPage(db: Db, s: SourceQuery): Promise<TimelineTurnRow[]> {
  const q = db
    .selectFrom('agent_turns')
    .selectAll()
    .where('organization_id', '=', s.organizationId)
    .where('lead_id', '=', s.leadId);
  return keyset(q, 'updated_at', s).orderBy('updated_at').orderBy('id').limit(s.limit).execute();
}

export type TimelineOpeningRow = Selectable<LeadOpeningsTable>;

/** Openings the agent wrote (or tried to): a template opening is already on the timeline as its message. */
export async function composedOpeningsPage(db: Db, s: SourceQuery): Promise<TimelineOpeningRow[]> {
  const q = db
    .selectFrom('lead_openings')
    .selectAll()
    .where('organization_id', '=', s.organizationId)
    .where('lead_id', '=', s.leadId)
    .where('kind', '=', 'composed');
  return keyset(q, 'updated_at', s).orderBy('updated_at').orderBy('id').limit(s.limit).execute();
}

export type TimelineNoteRow = Selectable<LeadNotesTable>;

/** addContext notes and commands, by the time they were added. */
export async function notesPage(db: Db, s: SourceQuery): Promise<TimelineNoteRow[]> {
  const q = db
    .selectFrom('lead_notes')
    .selectAll()
    .where('organization_id', '=', s.organizationId)
    .where('lead_id', '=', s.leadId);
  return keyset(q, 'created_at', s).orderBy('created_at').orderBy('id').limit(s.limit).execute();
}

export type TimelineCheckRow = Pick<
  Selectable<SendChecksTable>,
  'message_id' | 'detail' | 'reason' | 'latency_ms' | 'created_at'
>;

/** The External Compliance Check outcomes that blocked these messages (allowed checks are not shown, as the hosted service does). */
export async function blockingChecks(
  db: Db,
  organizationId: string,
  messageIds: string[],
): Promise<TimelineCheckRow[]> {
  if (messageIds.length === 0) return [];
  return db
    .selectFrom('send_checks')
    .select(['message_id', 'detail', 'reason', 'latency_ms', 'created_at'])
    .where('organization_id', '=', organizationId)
    .where('message_id', 'in', messageIds)
    .where('outcome', '=', 'blocked')
    .orderBy('id')
    .execute();
}

export type TimelineCallRow = Selectable<CallsTable>;

/** The lead's live calls (src/calls/), by the time they last changed. */
export async function callsPage(db: Db, s: SourceQuery): Promise<TimelineCallRow[]> {
  const q = db
    .selectFrom('calls')
    .selectAll()
    .where('organization_id', '=', s.organizationId)
    .where('lead_id', '=', s.leadId);
  return keyset(q, 'updated_at', s).orderBy('updated_at').orderBy('id').limit(s.limit).execute();
}

export type TimelineAppointmentRow = Selectable<AppointmentsTable>;

/** The lead's appointments, each in its current state, by the time it last changed (booked, moved, cancelled, no-show). */
export async function appointmentsPage(db: Db, s: SourceQuery): Promise<TimelineAppointmentRow[]> {
  const q = db
    .selectFrom('appointments')
    .selectAll()
    .where('organization_id', '=', s.organizationId)
    .where('lead_id', '=', s.leadId);
  return keyset(q, 'updated_at', s).orderBy('updated_at').orderBy('id').limit(s.limit).execute();
}
