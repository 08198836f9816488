import { requireLead } from '../lead-records/leads.repository.js';
import { foldedText } from '../platform/db/folded-text.js';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { referenceChannel } from '../lead-records/channels.js';
import * as repo from './timeline.repository.js';
import { EVENT_TYPES, type EventType, type LeadEventView, type ListEventsInput } from './timeline.schemas.js';

/** The hosted service's default page; its maximum (1000) is the schema's. */
const DEFAULT_PAGE = 100;

/** `since` as the fixed-width UTC text the tables hold, so it compares as a string; a clear 400 otherwise. */
export function parseSince(since: string | undefined): string {
  if (since === undefined || since.trim() === '') {
    throw new DomainError('since_required');
  }
  const parts = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(since.trim());
  const at = new Date(since.trim());
  // Date would roll 2026-02-31 over into March: a day the month does not have is refused.
  const realDay =
    parts !== null &&
    Number(parts[3]) >= 1 &&
    Number(parts[3]) <= new Date(Date.UTC(Number(parts[1]), Number(parts[2]), 0)).getUTCDate();
  if (!realDay || Number.isNaN(at.getTime())) throw new DomainError('invalid_since');
  return at.toISOString();
}

/** The requested types, or every type; any unknown name is a 400 that lists the allowed ones. */
export function parseTypes(types: string | undefined): Set<EventType> {
  if (types === undefined) return new Set(EVENT_TYPES);
  const names = types
    .split(',')
    .map((t) => t.trim().toUpperCase())
    .filter((t) => t !== '');
  if (names.length === 0 || names.some((t) => !(EVENT_TYPES as readonly string[]).includes(t)))
    throw new DomainError('invalid_types', { allowed: EVENT_TYPES.join(', ') });
  return new Set(names as EventType[]);
}

/** Cursors are opaque: base64url of [updatedAt, id] of the last event of the page. */
export const encodeTimelineCursor = (c: repo.TimelineCursor): string =>
  Buffer.from(JSON.stringify([c.at, c.id]), 'utf8').toString('base64url');

export function decodeTimelineCursor(token: string | undefined): repo.TimelineCursor | undefined {
  if (token === undefined || token === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new DomainError('invalid_cursor');
  }
  if (!Array.isArray(value) || value.length !== 2) throw new DomainError('invalid_cursor');
  const [at, id] = value as unknown[];
  if (
    typeof at !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(at) ||
    typeof id !== 'string' ||
    !/^[0-9a-f-]{36}$/.test(id)
  ) {
    throw new DomainError('invalid_cursor');
  }
  return { at, id };
}

type Stamped = { at: string; id: string; event: LeadEventView };

const DELIVERY = { sms: 'SMS', email: 'EMAIL', voice: 'CALL' } as const;
const TYPE_OF = { sms: 'MESSAGE', email: 'EMAIL', voice: 'CALL' } as const;

function messageEvent(
  organizationId: string,
  m: repo.TimelineMessageRow,
  checks: Map<string, repo.TimelineCheckRow>,
): Stamped {
  const updatedAt = m.updated_at ?? m.created_at;
  const base = { id: m.id, roomId: m.lead_id, orgId: organizationId, timestamp: m.created_at, updatedAt };
  if (m.status === 'blocked') {
    const check = checks.get(m.id);
    return {
      at: updatedAt,
      id: m.id,
      event: {
        ...base,
        type: 'COMPLIANCE_BLOCKED',
        data: {
          channel: referenceChannel(m.channel),
          reason: m.status_code ?? 'BLOCKED',
          source: m.is_ai_generated === 1 ? 'agent' : 'http',
          triggeredBy: m.is_ai_generated === 1 ? 'llm' : 'user',
          messageId: m.id,
          reasonText: m.status_reason,
          content: { text: foldedText(m) },
          ...(check
            ? { externalCheck: { detail: check.detail, reason: check.reason, latencyMs: Number(check.latency_ms) } }
            : {}),
        },
      },
    };
  }
  return {
    at: updatedAt,
    id: m.id,
    event: {
      ...base,
      type: TYPE_OF[m.channel],
      data: {
        direction: m.direction === 'inbound' ? 'INBOUND' : 'OUTBOUND',
        content: { text: foldedText(m) },
        isAiGenerated: m.is_ai_generated === 1,
        deliveryChannel: DELIVERY[m.channel],
        owner: m.owner,
        status: m.status,
        statusCode: m.status_code,
        statusReason: m.status_reason,
        scheduledTime: m.scheduled_at,
        ...(m.channel === 'voice' ? { durationSeconds: null } : {}),
      },
    },
  };
}

function turnEvent(organizationId: string, t: repo.TimelineTurnRow): Stamped {
  const tools: unknown = t.actions ? JSON.parse(t.actions) : [];
  return {
    at: t.updated_at,
    id: t.id,
    event: {
      id: t.id,
      roomId: t.lead_id,
      orgId: organizationId,
      type: 'TOOL_CALL',
      timestamp: t.created_at,
      updatedAt: t.updated_at,
      data: {
        kind: 'turn',
        tools: Array.isArray(tools) ? tools.map(String) : [],
        status: t.status,
        error: t.error,
        triggerMessageId: t.trigger_message_id,
      },
    },
  };
}

function openingEvent(organizationId: string, o: repo.TimelineOpeningRow): Stamped {
  return {
    at: o.updated_at,
    id: o.id,
    event: {
      id: o.id,
      roomId: o.lead_id,
      orgId: organizationId,
      type: 'TOOL_CALL',
      timestamp: o.created_at,
      updatedAt: o.updated_at,
      data: {
        kind: 'opening',
        tools: o.status === 'scheduled' ? ['reply'] : [],
        status: o.status,
        error: o.error,
        profile: o.profile,
        messageId: o.message_id,
      },
    },
  };
}

function noteEvent(organizationId: string, n: repo.TimelineNoteRow): Stamped {
  return {
    at: n.created_at,
    id: n.id,
    event: {
      id: n.id,
      roomId: n.lead_id,
      orgId: organizationId,
      type: 'CUSTOM',
      timestamp: n.created_at,
      updatedAt: n.created_at,
      data: { name: n.kind, text: n.text, consumedAt: n.consumed_at },
    },
  };
}

function callEvent(organizationId: string, c: repo.TimelineCallRow): Stamped {
  return {
    at: c.updated_at,
    id: c.id,
    event: {
      id: c.id,
      roomId: c.lead_id ?? '',
      orgId: organizationId,
      type: 'CALL',
      timestamp: c.created_at,
      updatedAt: c.updated_at,
      data: {
        kind: 'call',
        callId: c.id,
        direction: c.direction === 'inbound' ? 'INBOUND' : 'OUTBOUND',
        durationSeconds: c.duration_seconds === null ? null : Number(c.duration_seconds),
        outcome: c.outcome,
        status: c.status,
        summary: c.summary,
        transferTo: c.transfer_to,
      },
    },
  };
}

function appointmentEvent(organizationId: string, a: repo.TimelineAppointmentRow): Stamped {
  return {
    at: a.updated_at,
    id: a.id,
    event: {
      id: a.id,
      roomId: a.lead_id,
      orgId: organizationId,
      type: 'CUSTOM',
      timestamp: a.created_at,
      updatedAt: a.updated_at,
      data: {
        name: 'appointment',
        appointmentId: a.id,
        status: a.status,
        start: a.start_at,
        end: a.end_at,
        timeZone: a.time_zone,
        ownerId: a.owner_user_id,
        provider: a.provider,
      },
    },
  };
}

const byTimeThenId = (a: Stamped, b: Stamped) =>
  a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * GET /leads/{leadId}/events: what happened with a lead, oldest change first
 * (the hosted service orders by updatedAt ascending), from the data Parley
 * keeps: messages (MESSAGE sms, EMAIL, CALL voice), sends the compliance gate
 * stopped (COMPLIANCE_BLOCKED, with the reason; such a send appears as that
 * and not as a message), the agent's turns and the openings it wrote
 * (TOOL_CALL), addContext notes and commands (CUSTOM) and appointments
 * (CUSTOM, name `appointment`, in their current state). Each source is read
 * with the same keyset (time, id) for at most one page plus one, the results
 * merged: a page costs the same on the first day and after years of history.
 */
export async function listLeadEvents(deps: Deps, organizationId: string, leadId: string, q: ListEventsInput) {
  // A lead that does not exist (or is another organization's) is a 404 whatever the query says, as on every lead route.
  await requireLead(deps.db, organizationId, leadId);
  const since = parseSince(q.since);
  const types = parseTypes(q.types);
  const after = decodeTimelineCursor(q.nextToken);
  const limit = q.limit ?? DEFAULT_PAGE;
  const s: repo.SourceQuery = { organizationId, leadId, since, after, limit: limit + 1 };
  const channels = (['sms', 'email', 'voice'] as const).filter((c) => types.has(TYPE_OF[c]));
  const blocked = types.has('COMPLIANCE_BLOCKED');
  const toolCalls = types.has('TOOL_CALL');
  // One snapshot for every source (repeatable read on PostgreSQL; SQLite's transaction is one already):
  // an agent turn and the reply it recorded, committed together, are never half on a page.
  const { messages, turns, openings, notes, checks, calls, appointments } = await deps.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const messages = channels.length > 0 || blocked ? await repo.messagesPage(trx, s, { channels, blocked }) : [];
      const turns = toolCalls ? await repo.turnsPage(trx, s) : [];
      const openings = toolCalls ? await repo.composedOpeningsPage(trx, s) : [];
      const notes = types.has('CUSTOM') ? await repo.notesPage(trx, s) : [];
      const appointments = types.has('CUSTOM') ? await repo.appointmentsPage(trx, s) : [];
      const externallyBlocked = messages
        .filter((m) => m.status === 'blocked' && m.status_code === 'EXTERNAL_CHECK')
        .map((m) => m.id);
      const checks = new Map(
        (await repo.blockingChecks(trx, organizationId, externallyBlocked)).map((c) => [c.message_id, c]),
      );
      const calls = types.has('CALL') ? await repo.callsPage(trx, s) : [];
      return { messages, turns, openings, notes, checks, calls, appointments };
    });
  const all = [
    ...messages.map((m) => messageEvent(organizationId, m, checks)),
    ...turns.map((t) => turnEvent(organizationId, t)),
    ...openings.map((o) => openingEvent(organizationId, o)),
    ...notes.map((n) => noteEvent(organizationId, n)),
    ...calls.map((c) => callEvent(organizationId, c)),
    ...appointments.map((a) => appointmentEvent(organizationId, a)),
  ].sort(byTimeThenId);
  const page = all.slice(0, limit);
  const last = page[page.length - 1];
  const nextToken = all.length > limit && last ? encodeTimelineCursor({ at: last.at, id: last.id }) : null;
  return { events: page.map((e) => e.event), nextToken };
}
