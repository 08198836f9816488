import type { Updateable } from 'kysely';
import { requireLead } from '../leads/leads.service.js';
import { updateLead } from '../leads/leads.repository.js';
import { isoNow } from '../platform/clock.js';
import type { LeadsTable } from '../platform/db/schema.js';
import type { Deps } from '../platform/deps.js';
import { requireProfile } from './profiles.service.js';
import type { SwitchProfileInput } from './switch.schemas.js';

export interface EffectiveDelay {
  sendMessage: boolean;
  messageDelayHours: number;
  messageDelayMins: number;
  /** The same delay in milliseconds, for whoever schedules the opening message. */
  delayMs: number;
}

/**
 * The delay the client asked for, as the contract reads it: hours take
 * precedence over minutes (so minutes are 0 whenever hours are given), and
 * everything absent is false / 0. The reply echoes these values, so a client
 * sees exactly what will be scheduled.
 */
export function effectiveDelay(input: Pick<SwitchProfileInput, 'sendMessage' | 'messageDelayHours' | 'messageDelayMins'>): EffectiveDelay {
  const hours = input.messageDelayHours ?? 0;
  const mins = input.messageDelayHours === undefined ? (input.messageDelayMins ?? 0) : 0;
  return {
    sendMessage: input.sendMessage ?? false,
    messageDelayHours: hours,
    messageDelayMins: mins,
    delayMs: (hours * 60 + mins) * 60_000,
  };
}

/**
 * Points the lead at another profile. With `clearMemory` the AI starts over
 * from `memory_cleared_at` on its next turn; the message history itself is
 * kept (it is the record of what was said, and the messages API serves it).
 * Sending the opening message belongs to the caller's scheduler, which should
 * enqueue it with the returned delay in this same transaction.
 */
export async function switchCustomerProfile(deps: Deps, organizationId: string, leadId: string, input: SwitchProfileInput): Promise<EffectiveDelay> {
  const delay = effectiveDelay(input);
  const locking = deps.dialect === 'postgres';
  await deps.db.transaction().execute(async (trx) => {
    await requireLead(trx, organizationId, leadId, locking);
    // A share lock keeps a concurrent delete of this profile from passing its "no lead uses it" check.
    await requireProfile(trx, organizationId, input.profile, locking && 'share');
    const at = isoNow(deps.clock);
    const patch: Updateable<LeadsTable> = { customer_profile: input.profile, updated_at: at };
    if (input.clearMemory === true) patch.memory_cleared_at = at;
    await updateLead(trx, organizationId, leadId, patch);
  });
  return delay;
}
