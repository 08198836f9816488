import type { Updateable } from 'kysely';
import { requireLead } from '../lead-records/leads.repository.js';
import { updateLead } from '../lead-records/leads.repository.js';
import { requestOpening, type OpeningResult } from './opening.js';
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
export function effectiveDelay(
  input: Pick<SwitchProfileInput, 'sendMessage' | 'messageDelayHours' | 'messageDelayMins'>,
): EffectiveDelay {
  const hours = input.messageDelayHours ?? 0;
  const mins = input.messageDelayHours === undefined ? (input.messageDelayMins ?? 0) : 0;
  return {
    sendMessage: input.sendMessage ?? false,
    messageDelayHours: hours,
    messageDelayMins: mins,
    delayMs: (hours * 60 + mins) * 60_000,
  };
}

export interface SwitchResult extends EffectiveDelay {
  /** What became of the opening message; null without sendMessage. */
  opening: OpeningResult | null;
}

/**
 * Points the lead at another profile. With `clearMemory` the AI starts over
 * from `memory_cleared_at` on its next turn; the message history itself is
 * kept (it is the record of what was said, and the messages API serves it).
 * With `sendMessage` the profile's opening message is recorded and its send
 * scheduled after the effective delay, in the same transaction as the switch;
 * a profile without an opening template gets one written by the agent
 * (profiles/opening.ts). The compliance gate decides at send time.
 */
export async function switchCustomerProfile(
  deps: Deps,
  organizationId: string,
  leadId: string,
  input: SwitchProfileInput,
): Promise<SwitchResult> {
  const delay = effectiveDelay(input);
  const opening = await deps.db.transaction().execute(async (trx): Promise<OpeningResult | null> => {
    const lead = await requireLead(trx, organizationId, leadId, true);
    // A share lock keeps a concurrent delete of this profile from passing its "no lead uses it" check.
    const profile = await requireProfile(trx, organizationId, input.profile, 'share');
    const now = deps.clock.now();
    const at = now.toISOString();
    const patch: Updateable<LeadsTable> = { customer_profile: input.profile, updated_at: at };
    if (input.clearMemory === true) patch.memory_cleared_at = at;
    await updateLead(trx, organizationId, leadId, patch);
    if (!delay.sendMessage) return null;
    // Same transaction: the switch and its opening message (or the job that writes it) commit together.
    return requestOpening(trx, organizationId, lead, profile, new Date(now.getTime() + delay.delayMs), now);
  });
  return { ...delay, opening };
}
