import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../platform/db/errors.js';
import type { Database, Db } from '../platform/db/schema.js';
import { FALLBACK_TIME_ZONE } from '../platform/time-zone.js';
import { createOrganization, findOrganizationByName } from './organizations.repository.js';

export interface NewOrganizationOptions {
  /** IANA zone a new organization's contact hours are judged in when a lead's own zone is unknown. */
  timeZone?: string;
}

/**
 * Runs `work` in one transaction with the organization named `name`, made
 * first when it does not exist yet: work that fails leaves no new
 * organization behind (`keys create`, `users create`).
 */
export async function inOrganizationNamed<T>(
  db: Kysely<Database>,
  name: string,
  at: string,
  work: (trx: Db, organizationId: string) => Promise<T>,
  options: NewOrganizationOptions = {},
): Promise<T> {
  const attempt = () =>
    db.transaction().execute(async (trx) => {
      const org =
        (await findOrganizationByName(trx, name)) ??
        (await createOrganization(trx, name, at, options.timeZone ?? FALLBACK_TIME_ZONE));
      return work(trx, org.id);
    });
  try {
    return await attempt();
  } catch (err) {
    // Another caller created the organization between our lookup and insert (PostgreSQL): it exists now, so use it.
    if (isUniqueViolation(err)) return attempt();
    throw err;
  }
}
