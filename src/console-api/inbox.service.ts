import type { ListMessagesInput } from '../messages/messages.schemas.js';
import { listMessageRows, toMessageView } from '../messages/messages.service.js';
import type { Deps } from '../platform/deps.js';

/**
 * A page of the lead's messages as /v1 shows them, but with an email's subject apart from its text (the body),
 * and who wrote it: `purpose` tells Parley's own compliance replies (a STOP's confirmation) from the team's.
 */
export async function conversationMessages(deps: Deps, organizationId: string, leadId: string, q: ListMessagesInput) {
  const { rows, nextToken } = await listMessageRows(deps, organizationId, leadId, q);
  return {
    messages: rows.map((row) => ({
      ...toMessageView(row),
      content: { text: row.text },
      subject: row.subject,
      purpose: row.purpose,
    })),
    nextToken,
  };
}
