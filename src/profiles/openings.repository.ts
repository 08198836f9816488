import type { Insertable, Selectable } from 'kysely';
import type { Db, LeadOpeningsTable, OpeningStatus } from '../platform/db/schema.js';

export type OpeningRow = Selectable<LeadOpeningsTable>;

export async function insertOpening(
  db: Db,
  organizationId: string,
  row: Omit<Insertable<LeadOpeningsTable>, 'organization_id'>,
): Promise<void> {
  await db
    .insertInto('lead_openings')
    .values({ ...row, organization_id: organizationId })
    .execute();
}

export async function findOpening(db: Db, organizationId: string, id: string): Promise<OpeningRow | undefined> {
  return db
    .selectFrom('lead_openings')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The lead's most recent opening (ids are time-ordered UUIDv7). */
export async function latestOpening(db: Db, organizationId: string, leadId: string): Promise<OpeningRow | undefined> {
  return db
    .selectFrom('lead_openings')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export interface OpeningOutcome {
  status: Exclude<OpeningStatus, 'composing'>;
  messageId?: string | null;
  error?: string | null;
  at: string;
}

/** Only an opening still being composed can end, and only once: a second run of its job changes nothing. Answers whether it ended here. */
export async function finishOpening(db: Db, organizationId: string, id: string, o: OpeningOutcome): Promise<boolean> {
  const result = await db
    .updateTable('lead_openings')
    .set({
      status: o.status,
      message_id: o.messageId ?? null,
      error: o.error ? o.error.slice(0, 1000) : null,
      updated_at: o.at,
    })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('status', '=', 'composing')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
