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
