import { channelStatus, isUnsubscribed } from '../subscriptions/channels.js';
import type { LeadRow, LeadViewRow, TagRow } from './leads.repository.js';
import type { LeadView } from './leads.schemas.js';

export function parseInfo(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

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
    isUnsubscribed: isUnsubscribed(row),
    isAiOn: row.is_ai_on === 1,
    isDoNotContact: onDnc,
    tags: tags.map((t) => ({ id: t.id, name: t.name, condition: t.condition })),
    summary: row.summary,
    timeZone: row.time_zone,
    externalLeadId: row.external_lead_id,
    subscriptions: { sms: channelStatus(row, 'sms'), voice: channelStatus(row, 'voice'), email: channelStatus(row, 'email') },
  };
}

/** From a row of findLeadView/listLeadViews: tags arrive as JSON (text on SQLite, parsed on PostgreSQL). */
export function toLeadViewOf(row: LeadViewRow): LeadView {
  const raw = typeof row.tags_json === 'string' ? (JSON.parse(row.tags_json) as unknown) : row.tags_json;
  const tags = Array.isArray(raw) ? (raw as TagRow[]) : [];
  return toLeadView(row, tags, row.on_dnc === true || row.on_dnc === 1 || row.on_dnc === '1');
}
