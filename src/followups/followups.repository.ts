import type { Db } from '../platform/db/schema.js';

/**
 * The follow-up cadence's own queries. Its state lives on the lead's row
 * (leads.follow_up_*, written through leads.repository.ts with the rest of the
 * lead, under the lead's lock); what is here touches the lead's messages.
 */

/** Marks a recorded outbound message as the cadence's, with its step (webhooks and the history read these columns). */
export async function markFollowUpMessage(
  db: Db,
  organizationId: string,
  messageId: string,
  step: number,
): Promise<void> {
  await db
    .updateTable('messages')
    .set({ is_follow_up: 1, follow_up_step: step })
    .where('organization_id', '=', organizationId)
    .where('id', '=', messageId)
    .execute();
}

/**
 * The cadence's messages still waiting to go out (e.g. for contact hours) when
 * it stops: recorded blocked with why, so they never follow a reply or a stop.
 * Answers how many.
 */
export async function blockQueuedFollowUps(
  db: Db,
  organizationId: string,
  leadId: string,
  reason: string,
  at: string,
): Promise<number> {
  const res = await db
    .updateTable('messages')
    .set({ status: 'blocked', status_code: 'FOLLOW_UP_STOPPED', status_reason: reason, updated_at: at })
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('direction', '=', 'outbound')
    .where('is_follow_up', '=', 1)
    .where('status', '=', 'scheduled')
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
