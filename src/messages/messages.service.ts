import { requireLead } from '../lead-records/leads.repository.js';
import type { Deps } from '../platform/deps.js';
import { decodeCursor, page } from '../platform/http/pagination.js';
import { toChannel } from '../lead-records/channels.js';
import { foldedText } from '../platform/db/folded-text.js';
import * as repo from './messages.repository.js';
import type { ListMessagesInput, MessageView } from './messages.schemas.js';

/** docs/contract.md: default and maximum page are both 1000. */
const DEFAULT_PAGE = 1000;

export function toMessageView(row: repo.MessageRow): MessageView {
  return {
    id: row.id,
    content: { text: foldedText(row) },
    createdAt: row.created_at,
    owner: row.owner,
    isAiGenerated: row.is_ai_generated === 1,
    channel: row.channel,
    direction: row.direction,
    status: row.status,
    statusReason: row.status_reason,
    statusCode: row.status_code,
    scheduledTime: row.scheduled_at,
    // Shown once recorded (an SMS handed to the provider or waiting for a pacing slot): an addition to the reference's shape.
    ...(row.segments === null ? {} : { segments: Number(row.segments) }),
    // A failed send's provider error and its class (deliverability/), shown once recorded.
    ...(row.error_code == null ? {} : { errorCode: row.error_code, errorClass: row.error_class ?? 'unknown' }),
  };
}

/** A lead of another organization is missing to the caller: same 404, same code path. */
export async function listMessages(deps: Deps, organizationId: string, leadId: string, q: ListMessagesInput) {
  const { rows, nextToken } = await listMessageRows(deps, organizationId, leadId, q);
  return { messages: rows.map(toMessageView), nextToken };
}

/** The rows of that page, for a reader with its own shape (the console's, which keeps an email's subject apart). */
export async function listMessageRows(deps: Deps, organizationId: string, leadId: string, q: ListMessagesInput) {
  const limit = q.limit ?? DEFAULT_PAGE;
  const afterId = decodeCursor(q.nextToken);
  await requireLead(deps.db, organizationId, leadId);
  const rows =
    q.channel === undefined
      ? await repo.listMessages(deps.db, organizationId, leadId, afterId, limit)
      : await repo.listMessagesOnChannel(deps.db, organizationId, leadId, toChannel(q.channel), afterId, limit);
  const { items, nextToken } = page(rows, limit);
  return { rows: items, nextToken };
}
