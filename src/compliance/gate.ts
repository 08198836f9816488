import { phonesOnDnc } from '../suppression-records/dnc.repository.js';
import type { LeadRow } from '../lead-records/leads.repository.js';
import { countAutomatedContactsSince, leadMessageReceivedAt } from './send-checks.repository.js';
import type { AddressDigests } from '../platform/address-digest.js';
import type { Db, MessagePurpose } from '../platform/db/schema.js';
import type { OrganizationSettings } from '../settings/settings.service.js';
import { channelStatus, sourceColumn, type ChannelName } from '../lead-records/channels.js';
import { suppressionOf } from '../suppression-records/suppressions.repository.js';
import type { ExternalVerdict } from './external-verdict.js';
import { leadContactWindow } from './lead-window.js';

/** Why a send may not go out (or not yet), as recorded on the message (`statusCode`) and shown on the timeline. */
export const BLOCK_CODES = [
  'NO_ADDRESS',
  'OPTED_OUT',
  'DNC',
  'AI_OFF',
  'FREQUENCY_CAP',
  'EXTERNAL_CHECK',
  'OPTED_OUT_BEFORE_SEND',
  'UNREACHABLE',
] as const;
export type BlockCode = (typeof BLOCK_CODES)[number];

export type GateDecision =
  | { kind: 'allowed' }
  | { kind: 'blocked'; code: BlockCode; reason: string }
  | { kind: 'wait'; code: 'CONTACT_HOURS'; until: Date; reason: string }
  /** Everything else allows it: the organization's External Compliance Check must now be asked, and the gate asked again with its verdict. */
  | { kind: 'ask_external' };

export interface GateRequest {
  lead: LeadRow;
  channel: ChannelName;
  purpose: MessagePurpose;
  /** The organization explicitly asked to send even while the AI is off for this lead. */
  sendWhenOff: boolean;
  /** AI-generated (replies, openings, follow-ups): counted by the frequency cap. */
  automated: boolean;
  settings: OrganizationSettings;
  now: Date;
  /** Lifts the organization's own contact hours, never the legal window where the lead is. */
  overrideBusinessHours?: boolean;
  /** The lead's inbound message this send answers (messages.in_reply_to): within the reply window after it, the legal floor does not hold the send. */
  inReplyTo?: string | null;
  /** The External Compliance Check's verdict on this send, once asked. */
  external?: ExternalVerdict;
}

/** Lead-made opt-outs by text, which a STOP confirmation may answer (carriers expect exactly one). */
const CONFIRMABLE = new Set(['keyword', 'phrase', 'message']);

const DAY_MS = 24 * 3_600_000;
const MINUTE_MS = 60_000;

/**
 * A reply may trail the lead's message by at most the reply window: from the
 * instant it was received to `minutes` later, both ends included. A clock
 * read before the message (a worker behind) is not within it.
 */
export function withinReplyWindow(leadMessageAt: Date, now: Date, minutes: number): boolean {
  const elapsed = now.getTime() - leadMessageAt.getTime();
  return elapsed >= 0 && elapsed <= minutes * MINUTE_MS;
}

/** Whether the send answers the lead's own message and is still within the reply window after it. */
async function answersLeadNow(db: Db, organizationId: string, req: GateRequest): Promise<boolean> {
  if (!req.inReplyTo) return false;
  const at = await leadMessageReceivedAt(db, organizationId, req.lead.id, req.inReplyTo);
  return at !== undefined && withinReplyWindow(new Date(at), req.now, req.settings.replyWindowMinutes);
}

/**
 * The compliance gate: the only judge of whether an outbound contact may
 * happen now. It is asked by the send path itself (channels/outbound.ts)
 * under the lead's lock, right before a provider is called, so no caller can
 * skip it and no flag bypasses opt-outs or DNC. In order:
 *
 * 1. the lead can receive the channel;
 * 2. the channel is subscribed, on the lead and for the address
 *    (suppressions hold for every lead with that address);
 * 3. the number is not on the Do Not Contact list (sms, voice), and the
 *    address was not reported invalid or unreachable on the channel;
 * 4. the AI is on, unless the send asked `sendWhenOff`;
 * 5. the lead's automated contacts in the last 24 h (the AI's messages and calls) are under the cap;
 * 6. it is inside contact hours where the lead is (else: wait for the window):
 *    the legal floor, 08:00-21:00 there (and the stricter regional window with
 *    `regionalRules`), bounds every contact the organization starts whatever
 *    its own hours or `overrideBusinessHours`; only a reply to the lead's own
 *    message within the reply window (`replyWindowMinutes` after it) is not
 *    held to it. The organization's own hours still apply inside the floor;
 * 7. the organization's External Compliance Check allows it.
 *
 * A compliance reply (HELP answer, START confirmation) passes 1-3 and then
 * only the legal floor, which its reply window lifts like any reply's; the one
 * confirmation of the lead's own STOP passes 2 as well.
 */
export async function checkOutbound(
  db: Db,
  digests: AddressDigests,
  organizationId: string,
  req: GateRequest,
): Promise<GateDecision> {
  const { lead, channel, settings } = req;
  const status = channelStatus(lead, channel);
  if (status === 'unavailable')
    return { kind: 'blocked', code: 'NO_ADDRESS', reason: `lead has no ${channel === 'email' ? 'email' : 'phone'}` };
  // biome-ignore lint/style/noNonNullAssertion: channelStatus() is 'unavailable' (returned above) when the channel's address is missing
  const address = channel === 'email' ? lead.email! : lead.phone!;
  const confirmsOwnStop =
    req.purpose === 'stop_confirmation' &&
    status === 'unsubscribed' &&
    CONFIRMABLE.has(lead[sourceColumn(channel)] ?? '');
  if (!confirmsOwnStop) {
    if (status === 'unsubscribed')
      return { kind: 'blocked', code: 'OPTED_OUT', reason: `lead is unsubscribed from ${channel}` };
    if ((await suppressionOf(db, organizationId, digests, channel, address)) !== undefined)
      return {
        kind: 'blocked',
        code: 'OPTED_OUT',
        reason: `the ${channel === 'email' ? 'address' : 'number'} opted out of ${channel}`,
      };
  }
  if (channel !== 'email' && (await phonesOnDnc(db, organizationId, [address])).has(address)) {
    return { kind: 'blocked', code: 'DNC', reason: 'phone is on the Do Not Contact list' };
  }
  // A provider called this very address invalid or unreachable on the channel (deliverability/): a new address lifts it.
  const unreachable = lead[`${channel}_unreachable_digest`];
  if (unreachable != null && unreachable === digests.keyed(address)) {
    return {
      kind: 'blocked',
      code: 'UNREACHABLE',
      reason: `the ${channel === 'email' ? 'address' : 'number'} cannot receive ${channel} (${lead[`${channel}_unreachable_code`] ?? 'provider error'}); it is tried again once the lead's ${channel === 'email' ? 'email' : 'phone'} changes`,
    };
  }
  const replying = await answersLeadNow(db, organizationId, req);
  if (req.purpose !== 'conversation') {
    // Confirmations and HELP answers are replies too: prompt ones go at once, late ones wait for the legal floor (not the organization's hours).
    if (replying) return { kind: 'allowed' };
    const floor = await leadContactWindow(lead, settings, req.now, { overrideOrganizationHours: true });
    return floor.inside
      ? { kind: 'allowed' }
      : { kind: 'wait', code: 'CONTACT_HOURS', until: floor.opensAt, reason: floor.reason };
  }
  if (lead.is_ai_on !== 1 && !req.sendWhenOff)
    return { kind: 'blocked', code: 'AI_OFF', reason: 'AI is off for this lead' };
  const cap = req.automated ? settings.frequencyCap : null;
  if (cap) {
    const since = new Date(req.now.getTime() - DAY_MS).toISOString();
    // A call is a contact as much as a message, on whichever channel comes next.
    const contacts = await countAutomatedContactsSince(db, organizationId, lead.id, since);
    if (contacts >= cap.maxAutomatedPerDay)
      return {
        kind: 'blocked',
        code: 'FREQUENCY_CAP',
        reason: `${contacts} automated messages and calls in the last 24 hours (cap ${cap.maxAutomatedPerDay})`,
      };
  }
  const window = await leadContactWindow(lead, settings, req.now, {
    overrideOrganizationHours: req.overrideBusinessHours ?? false,
    answersLeadNow: replying,
  });
  if (!window.inside) return { kind: 'wait', code: 'CONTACT_HOURS', until: window.opensAt, reason: window.reason };
  if (settings.externalCheck) {
    if (!req.external) return { kind: 'ask_external' };
    if (!req.external.allowed) return { kind: 'blocked', code: 'EXTERNAL_CHECK', reason: req.external.reason };
  }
  return { kind: 'allowed' };
}
