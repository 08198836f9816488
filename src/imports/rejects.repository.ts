import { sql } from 'kysely';
import type { Db } from '../platform/db/schema.js';

/**
 * Rejected import rows quote whatever the file held, names and addresses
 * included, so they do not outlive their purpose (fixing and re-running the
 * file): an erasure removes those naming the lead, and housekeeping removes
 * all of an import once it is older than the retention. Kept apart from
 * imports.repository.ts, which the leads' erasure cannot import without a cycle.
 */

/**
 * Housekeeping across organizations: the rejected rows of imports started
 * before `startedBefore`, a few imports per call (each one's rows are a
 * range of the primary key), so no single transaction holds SQLite's write
 * lock for long. Answers how many imports were cleared; call again until 0.
 */
export async function deleteExpiredRejects(db: Db, startedBefore: string, imports = 20): Promise<number> {
  const expired = await db
    .selectFrom('imports')
    .select(['organization_id', 'id'])
    .where('started_at', '<', startedBefore)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('import_rejects')
          .select(sql<number>`1`.as('one'))
          .whereRef('import_rejects.organization_id', '=', 'imports.organization_id')
          .whereRef('import_rejects.import_id', '=', 'imports.id'),
      ),
    )
    .limit(imports)
    .execute();
  for (const i of expired) {
    await db
      .deleteFrom('import_rejects')
      .where('organization_id', '=', i.organization_id)
      .where('import_id', '=', i.id)
      .execute();
    await db
      .deleteFrom('import_reject_keys')
      .where('organization_id', '=', i.organization_id)
      .where('import_id', '=', i.id)
      .execute();
  }
  return expired.length;
}
