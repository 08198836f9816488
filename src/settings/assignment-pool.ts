import { DomainError } from '../platform/errors.js';
import type { Db } from '../platform/db/schema.js';
import { findUser } from '../users/users.repository.js';

/** Every user id of an assignment pool must be a user of the organization (another organization's user is unknown here). */
export async function checkPool(db: Db, organizationId: string, pool: readonly string[]): Promise<void> {
  for (const id of pool) {
    if (!(await findUser(db, organizationId, id)))
      throw new DomainError('unknown_user', { detail: `assignment.pool: no user with id ${id} in this organization` });
  }
}
