import type { Updateable } from 'kysely';
import { isoNow } from '../platform/clock.js';
import { isUniqueViolation } from '../platform/db/errors.js';
import type { SendingNumbersTable } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { newId } from '../platform/ids.js';
import { normalizePhone } from '../platform/phone.js';
import { checkNumberFree, numberTaken } from './ownership.js';
import * as repo from './sending-numbers.repository.js';
import { toSendingNumberView } from './sending-numbers.mapper.js';
import {
  DEFAULT_RATE,
  type CreateSendingNumberInput,
  type SendingNumberView,
  type UpdateSendingNumberInput,
} from './sending-numbers.schemas.js';

export async function createSendingNumber(
  deps: Deps,
  organizationId: string,
  input: CreateSendingNumberInput,
): Promise<SendingNumberView> {
  const number = normalizePhone(input.number, deps.config.defaultCountry, 'number');
  const at = isoNow(deps.clock);
  const id = newId();
  try {
    await deps.db.transaction().execute(async (trx) => {
      await checkNumberFree(trx, organizationId, number, 'pool');
      await repo.insertSendingNumber(trx, organizationId, {
        id,
        number,
        kind: input.kind,
        channel: input.channel ?? 'sms',
        rate_per_second: input.ratePerSecond ?? DEFAULT_RATE[input.kind],
        daily_cap: input.dailyCap ?? null,
        created_at: at,
        updated_at: at,
      });
    });
  } catch (err) {
    // Two organizations adding one number at once: the unique index lets one win.
    if (isUniqueViolation(err)) throw numberTaken(number);
    throw err;
  }
  return toSendingNumberView(await repo.requireSendingNumber(deps.db, organizationId, id));
}

export async function listSendingNumbers(deps: Deps, organizationId: string): Promise<SendingNumberView[]> {
  return (await repo.listSendingNumbers(deps.db, organizationId)).map(toSendingNumberView);
}

export async function getSendingNumber(deps: Deps, organizationId: string, id: string): Promise<SendingNumberView> {
  return toSendingNumberView(await repo.requireSendingNumber(deps.db, organizationId, id));
}

/**
 * A new rate or cap applies from the next reservation (slots already handed
 * out stay). A kind change without a rate moves a rate that was the old kind's
 * default to the new kind's; a rate the organization chose is kept.
 */
export async function updateSendingNumber(
  deps: Deps,
  organizationId: string,
  id: string,
  input: UpdateSendingNumberInput,
): Promise<SendingNumberView> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await repo.requireSendingNumber(trx, organizationId, id, true);
    const patch: Updateable<SendingNumbersTable> = { updated_at: isoNow(deps.clock) };
    if (input.kind !== undefined) {
      patch.kind = input.kind;
      if (input.ratePerSecond === undefined && Number(row.rate_per_second) === DEFAULT_RATE[row.kind])
        patch.rate_per_second = DEFAULT_RATE[input.kind];
    }
    if (input.ratePerSecond !== undefined) patch.rate_per_second = input.ratePerSecond;
    if (input.dailyCap !== undefined) patch.daily_cap = input.dailyCap;
    await repo.updateSendingNumber(trx, organizationId, id, patch);
    return toSendingNumberView(await repo.requireSendingNumber(trx, organizationId, id));
  });
}

/** Leads stuck to it get another number at their next send; a message waiting for one of its slots takes a new slot then. */
export async function deleteSendingNumber(deps: Deps, organizationId: string, id: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    await repo.requireSendingNumber(trx, organizationId, id, true);
    await repo.deleteSendingNumber(trx, organizationId, id);
  });
}
