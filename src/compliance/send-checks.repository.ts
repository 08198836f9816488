import type { Insertable } from 'kysely';
import type { Db, SendChecksTable } from '../platform/db/schema.js';

/** Every External Compliance Check outcome is kept, allowed or not, with how long the check took. */
export async function insertSendCheck(
  db: Db,
  organizationId: string,
  row: Omit<Insertable<SendChecksTable>, 'organization_id'>,
): Promise<void> {
  await db
    .insertInto('send_checks')
    .values({ ...row, organization_id: organizationId })
    .execute();
}

/** When the lead's own (inbound) message was received, or undefined when no such message of this lead exists: the gate's reply window counts from it. */
export async function leadMessageReceivedAt(
  db: Db,
  organizationId: string,
  leadId: string,
  messageId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('messages')
    .select('created_at')
    .where('organization_id', '=', organizationId)
    .where('id', '=', messageId)
    .where('lead_id', '=', leadId)
    .where('direction', '=', 'inbound')
    .executeTakeFirst();
  return row?.created_at;
}

/**
 * The frequency cap's count: the lead's automated contacts since `since`, whatever their channel, in one
 * statement. AI-generated messages handed to a provider (one in doubt may have reached the lead: it counts),
 * and calls the AI dialled, whatever came of them; a call that speaks an opening message is that message's
 * contact and counts once, by the message.
 */
export async function countAutomatedContactsSince(
  db: Db,
  organizationId: string,
  leadId: string,
  since: string,
): Promise<number> {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('messages')
        .select((m) => m.fn.countAll<number | string>().as('n'))
        .where('organization_id', '=', organizationId)
        .where('lead_id', '=', leadId)
        .where('direction', '=', 'outbound')
        .where('is_ai_generated', '=', 1)
        .where('status', 'in', ['sending', 'sent', 'delivered', 'in_doubt'])
        .where('scheduled_at', '>=', since)
        .as('messages'),
      eb
        .selectFrom('calls')
        .select((c) => c.fn.countAll<number | string>().as('n'))
        .where('organization_id', '=', organizationId)
        .where('lead_id', '=', leadId)
        .where('direction', '=', 'outbound')
        .where('provider_call_id', 'is not', null)
        .where('message_id', 'is', null)
        .where('created_at', '>=', since)
        .as('calls'),
    ])
    .executeTakeFirstOrThrow();
  return Number(row.messages ?? 0) + Number(row.calls ?? 0);
}
