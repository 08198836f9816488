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

/** Automated (AI-generated) messages handed to a provider for the lead since `since`: the frequency cap's count. */
export async function countAutomatedSince(
  db: Db,
  organizationId: string,
  leadId: string,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('direction', '=', 'outbound')
    .where('is_ai_generated', '=', 1)
    // A send in doubt may have reached the lead: it counts.
    .where('status', 'in', ['sending', 'sent', 'delivered', 'in_doubt'])
    .where('scheduled_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
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

/** Calls placed to the lead since `since` (dialled, whatever came of them): with its automated messages, the frequency cap's count. */
export async function countDialledSince(
  db: Db,
  organizationId: string,
  leadId: string,
  since: string,
): Promise<number> {
  const row = await db
    .selectFrom('calls')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('direction', '=', 'outbound')
    .where('provider_call_id', 'is not', null)
    // An opening call is counted once, by its opening message (countAutomatedSince).
    .where('message_id', 'is', null)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
