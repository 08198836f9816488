import { DomainError } from '../platform/errors.js';
import { parseInfo } from '../lead-records/additional-info.js';
import { channelStatus, isUnsubscribed } from '../lead-records/channels.js';
import { followUpView } from '../followups/followups.mapper.js';
import type { DeletedLeadRow, FeedOrder, LeadRow, LeadViewRow, TagRow } from '../lead-records/leads.repository.js';
import type { LeadView } from './leads.schemas.js';
import type { SearchPosition } from './lead-search.repository.js';

export function toLeadView(row: LeadRow, tags: TagRow[], onDnc: boolean): LeadView {
  return {
    id: row.id,
    firstName: row.first_name ?? '',
    lastName: row.last_name ?? '',
    phone: row.phone,
    email: row.email,
    customerProfile: row.customer_profile,
    additionalInfo: parseInfo(row.additional_info),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastActivityAt: row.last_activity_at,
    hasReplied: row.has_replied === 1,
    isHot: row.is_hot === 1,
    isQualified: row.is_qualified === 1,
    isBooked: row.is_booked === 1,
    isUnsubscribed: isUnsubscribed(row),
    isAiOn: row.is_ai_on === 1,
    isDoNotContact: onDnc,
    tags: tags.map((t) => ({ id: t.id, name: t.name, condition: t.condition })),
    summary: row.summary,
    timeZone: row.time_zone,
    externalLeadId: row.external_lead_id,
    subscriptions: {
      sms: channelStatus(row, 'sms'),
      voice: channelStatus(row, 'voice'),
      email: channelStatus(row, 'email'),
    },
    ...followUpView(row),
    owner: row.owner_id ?? null,
  };
}

/** From a row of findLeadView/listLeadViews: tags arrive as JSON (text on SQLite, parsed on PostgreSQL). */
export function toLeadViewOf(row: LeadViewRow): LeadView {
  const raw = typeof row.tags_json === 'string' ? (JSON.parse(row.tags_json) as unknown) : row.tags_json;
  const tags = Array.isArray(raw) ? (raw as TagRow[]) : [];
  return toLeadView(row, tags, row.on_dnc === true || row.on_dnc === 1 || row.on_dnc === '1');
}

/** A lead in GET /v1/leads: the reference's `deleted` and `deletedAt` beside the lead's fields. */
export const listedLead = <T extends object>(view: T) => ({ ...view, deleted: false as const, deletedAt: null });

/** An erased lead in GET /v1/leads: its id and the flag, nothing else (its personal data is gone). */
export const deletedLeadView = (row: DeletedLeadRow) => ({
  id: row.id,
  deleted: true as const,
  deletedAt: row.deleted_at,
});

/** Where a change-feed page of GET /v1/leads resumes: the order, the filters, and the last item's timestamp and id. */
export interface FeedCursor {
  order: FeedOrder;
  createdSince?: string;
  updatedSince?: string;
  after: { at: string; id: string };
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ID = /^[0-9a-f-]{36}$/;

const isCursorId = (x: unknown): x is string => typeof x === 'string' && ID.test(x);
const isCursorTime = (x: unknown): x is string => typeof x === 'string' && ISO.test(x);
const invalidCursor = () => new DomainError('invalid_cursor');

/** Opaque to clients (base64url of JSON), self-contained: the next page needs only the token. */
const encodeToken = (value: Record<string, unknown>): string =>
  Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/** The JSON object a token carries, or undefined when it carries none. */
function decodeToken(token: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function encodeFeedCursor(c: FeedCursor): string {
  return encodeToken({ o: c.order, t: c.after.at, i: c.after.id, c: c.createdSince, u: c.updatedSince });
}

/** The cursor, or undefined when the token is not a change-feed token (an id cursor of the unfiltered list, or garbage). */
export function decodeFeedCursor(token: string): FeedCursor | undefined {
  const value = decodeToken(token);
  if (!value) return undefined;
  const { o, t, i, c, u } = value;
  const optionalTime = (x: unknown) => x === undefined || isCursorTime(x);
  if ((o !== 'created' && o !== 'updated') || !isCursorTime(t) || !isCursorId(i)) throw invalidCursor();
  if (
    !optionalTime(c) ||
    !optionalTime(u) ||
    (o === 'updated' && u === undefined) ||
    (o === 'created' && c === undefined)
  )
    throw invalidCursor();
  return {
    order: o,
    after: { at: t, id: i },
    createdSince: c as string | undefined,
    updatedSince: u as string | undefined,
  };
}

/** Where a page of the console's search resumes (lead-search.service.ts): `s` the order, `i` the last lead, `t` its last activity ('' for none). */
export function encodeSearchCursor(
  sort: SearchPosition['sort'],
  last: { id: string; activityAt: string | null },
): string {
  return encodeToken(sort === 'created' ? { s: 'c', i: last.id } : { s: 'a', t: last.activityAt ?? '', i: last.id });
}

/** The position a search token names; it must be a token of the same order. */
export function decodeSearchCursor(sort: SearchPosition['sort'], token: string | undefined): SearchPosition {
  if (!token) return { sort };
  const v = decodeToken(token);
  if (!v || !isCursorId(v.i)) throw invalidCursor();
  if (sort === 'created' && v.s === 'c') return { sort, afterId: v.i };
  if (sort === 'lastActivity' && v.s === 'a' && (v.t === '' || isCursorTime(v.t)))
    return { sort, after: { at: v.t, id: v.i } };
  throw invalidCursor();
}
