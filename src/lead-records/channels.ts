import { DomainError } from '../platform/errors.js';
import type { LeadRow } from './leads.repository.js';

export const CHANNELS = ['sms', 'voice', 'email'] as const;
export type ChannelName = (typeof CHANNELS)[number];

/**
 * What a client may write for a channel: Parley's names, and `call`, the
 * hosted service's name for voice (its reference writes `call` in follow-up
 * steps, opt-out payloads and channel lists). Read as `voice` everywhere.
 */
export type ChannelInput = ChannelName | 'call';

export const toChannel = (c: ChannelInput): ChannelName => (c === 'call' ? 'voice' : c);

/** The same list, read; undefined stays undefined (the whole request's default applies). */
export const toChannels = (list: readonly ChannelInput[] | undefined): ChannelName[] | undefined =>
  list?.map(toChannel);

/** The hosted service's spelling of a channel, for the shapes its reference documents (`call` for voice). */
export const referenceChannel = (c: ChannelName): 'sms' | 'call' | 'email' => (c === 'voice' ? 'call' : c);

/** A phone gives sms and voice; an email address gives email. */
export function reachableChannels(lead: Pick<LeadRow, 'phone' | 'email'>): ChannelName[] {
  return CHANNELS.filter((c) => (c === 'email' ? !!lead.email : !!lead.phone));
}

export const statusColumn = (c: ChannelName) => `${c}_status` as const;
export const sourceColumn = (c: ChannelName) => `${c}_opt_out_source` as const;

export function channelStatus(
  lead: Pick<LeadRow, 'phone' | 'email' | 'sms_status' | 'voice_status' | 'email_status'>,
  c: ChannelName,
): 'subscribed' | 'unsubscribed' | 'unavailable' {
  if (!reachableChannels(lead).includes(c)) return 'unavailable';
  return lead[statusColumn(c)];
}

/** True when no channel the lead can receive remains subscribed. */
export function isUnsubscribed(lead: LeadRow): boolean {
  return reachableChannels(lead).every((c) => lead[statusColumn(c)] === 'unsubscribed');
}

/** Canonical order sms, voice, email; duplicates count once. */
export const inChannelOrder = (set: Iterable<ChannelName>): ChannelName[] => {
  const s = new Set(set);
  return CHANNELS.filter((c) => s.has(c));
};

/** The lead's first reachable channel in the order sms, email (voice only when asked for). */
export function defaultChannel(lead: LeadRow, requested?: ChannelName): ChannelName {
  const reachable = reachableChannels(lead);
  if (requested) {
    if (!reachable.includes(requested))
      throw new DomainError('channel_unavailable', { missing: requested === 'email' ? 'email' : 'phone' });
    return requested;
  }
  return reachable.includes('sms') ? 'sms' : 'email';
}
