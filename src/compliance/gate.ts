import { phonesOnDnc } from '../dnc/dnc.repository.js';
import type { LeadRow } from '../leads/leads.repository.js';
import type { Db, MessagePurpose } from '../platform/db/schema.js';
import type { SettingsView } from '../settings/settings.schemas.js';
import { channelStatus, type ChannelName } from '../subscriptions/channels.js';
import { insideWindow, nextWindowStart } from './contact-hours.js';

export type GateDecision =
  | { kind: 'allowed' }
  | { kind: 'blocked'; reason: string }
  | { kind: 'wait'; until: Date; reason: string };

export interface GateRequest {
  lead: LeadRow;
  channel: ChannelName;
  /** The organization explicitly asked to send even while the AI is off for this lead. */
  sendWhenOff: boolean;
  settings: SettingsView;
  now: Date;
  purpose: MessagePurpose;
}

/**
 * The compliance gate: the only judge of whether an outbound contact may happen
 * now. It is called by the channel layer itself (channels/outbound.ts) right
 * before a provider is asked to send, so no caller can skip it and no flag
 * bypasses the opt-out or DNC checks.
 */
export async function checkOutbound(db: Db, organizationId: string, req: GateRequest): Promise<GateDecision> {
  const { lead, channel } = req;
  const status = channelStatus(lead, channel);
  // A compliance reply (HELP answer, STOP/START confirmation) answers the lead's own
  // keyword: it may reach a channel the lead just opted out of by that keyword (carriers
  // expect exactly one confirmation), and it ignores AI state and contact hours. It is
  // still refused by DNC and by any other kind of opt-out.
  const compliance = req.purpose === 'compliance';
  if (status === 'unavailable') return { kind: 'blocked', reason: `lead has no ${channel === 'email' ? 'email' : 'phone'}` };
  const keywordOptOut = lead[`${channel}_opt_out_source`] === 'keyword';
  if (status === 'unsubscribed' && !(compliance && keywordOptOut)) return { kind: 'blocked', reason: `lead is unsubscribed from ${channel}` };
  if (channel !== 'email' && lead.phone && (await phonesOnDnc(db, organizationId, [lead.phone])).has(lead.phone)) {
    return { kind: 'blocked', reason: 'phone is on the Do Not Contact list' };
  }
  if (compliance) return { kind: 'allowed' };
  if (lead.is_ai_on !== 1 && !req.sendWhenOff) return { kind: 'blocked', reason: 'AI is off for this lead' };
  const zone = lead.time_zone ?? req.settings.timeZone;
  if (!insideWindow(req.now, zone, req.settings.contactHours)) {
    const { start, end } = req.settings.contactHours;
    return { kind: 'wait', until: nextWindowStart(req.now, zone, req.settings.contactHours), reason: `outside contact hours ${start}-${end} ${zone}` };
  }
  return { kind: 'allowed' };
}
