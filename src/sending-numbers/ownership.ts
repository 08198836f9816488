import { holdUntilCommit } from '../platform/db/locks.js';
import type { Db } from '../platform/db/schema.js';
import { DomainError } from '../platform/errors.js';
import { findNumberHolders } from './sending-numbers.repository.js';

/**
 * A number belongs to at most one organization across the instance, as its
 * settings `sendingNumber`, in its pool, or both, because inbound provider
 * webhooks find the organization by the number alone. This file is the one
 * place that rule is asked (settings, the pool, inbound routing).
 */

export const numberTaken = (number: string) => new DomainError('sending_number_taken', { number });

/** The organization an inbound message to `number` belongs to (its settings number first, then its pool), or none. */
export async function organizationOfNumber(db: Db, number: string): Promise<string | undefined> {
  const holders = await findNumberHolders(db, number);
  return holders.settings ?? holders.pool;
}

/**
 * Refuses a number another organization holds (409 sending_number_taken), and,
 * for the pool, one already in this organization's pool (409
 * sending_number_exists). The organization's own settings number may join its
 * pool and a pool number may become its settings number. Called in the
 * transaction that then writes the number, whose end releases the number's
 * lock taken here.
 */
export async function checkNumberFree(
  db: Db,
  organizationId: string,
  number: string,
  as: 'settings' | 'pool',
): Promise<void> {
  // A unique index arbitrates two claims on one table (two pools, two settings), but a settings claim and a
  // pool claim read and write different tables: under PostgreSQL's read committed both would find the number
  // free and both would write it. Claimants of one number take turns instead.
  await holdUntilCommit(db, `sending-number:${number}`);
  const { settings, pool } = await findNumberHolders(db, number);
  if ((settings !== undefined && settings !== organizationId) || (pool !== undefined && pool !== organizationId))
    throw numberTaken(number);
  if (as === 'pool' && pool === organizationId) throw new DomainError('sending_number_exists', { number });
}
