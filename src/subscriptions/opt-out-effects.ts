import type { Compilable } from 'kysely';
import type { ChannelName } from '../lead-records/channels.js';
import type { LeadRow } from '../lead-records/leads.repository.js';
import type { Db } from '../platform/db/schema.js';

/**
 * What a capability above subscriptions/ and dnc/ writes when a lead opts out of channels, in the opt-out's own
 * transaction: an unsubscribe (applyUnsubscribe), the same address followed on another lead, a DNC entry for the
 * lead's phone (dnc/ addDncIn, sms and voice). It answers queries for the opt-out's batch of writes
 * (platform/db/together.ts: tables no other write of the batch touches), none when it has nothing to stop.
 * Below it, the cadence's columns and the blocked sends are written by applyUnsubscribe itself (followups/,
 * messages/); above it, campaigns/ stops its enrollments (campaigns/opt-outs.ts). Registered where the process
 * is assembled (server.ts), so subscriptions/ and dnc/ never import the capabilities they stop.
 */
export type OptOutEffect = (
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  channels: readonly ChannelName[],
  at: string,
) => Compilable<unknown>[];

const effects = new Map<string, OptOutEffect>();

/** Registers (or replaces) the effect a capability names; assembling a process twice registers nothing new. */
export function onOptOut(name: string, effect: OptOutEffect): void {
  effects.set(name, effect);
}

/** The queries every registered effect adds to an opt-out of these channels. */
export function optOutEffectQueries(
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  channels: readonly ChannelName[],
  at: string,
): Compilable<unknown>[] {
  // An opt-out that skips its effects would leave campaigns sending to a lead who said stop: refuse instead.
  if (effects.size === 0) throw new Error('no opt-out effect is registered: assemble the process first (server.ts)');
  return [...effects.values()].flatMap((effect) => effect(trx, organizationId, lead, channels, at));
}
