import type { Channel, Lead } from './types';

const CHANNEL_NAMES: Record<Channel, string> = { sms: 'SMS', voice: 'voice', email: 'email' };

/**
 * What stops Parley from reaching the lead, channel by channel: each channel it opted out of, and the DNC list
 * (which blocks SMS and voice whatever the subscriptions say). A channel the lead has no address for is not
 * listed: nothing was refused there. Shown on the inbox row and the lead's header alike.
 */
export function ReachBadges({ lead }: { lead: Pick<Lead, 'subscriptions' | 'isDoNotContact'> }) {
  const optedOut = (Object.keys(CHANNEL_NAMES) as Channel[]).filter((c) => lead.subscriptions?.[c] === 'unsubscribed');
  return (
    <>
      {lead.isDoNotContact && <span class="badge off">do not contact</span>}
      {optedOut.map((c) => (
        <span key={c} class="badge off">
          {CHANNEL_NAMES[c]} opted out
        </span>
      ))}
    </>
  );
}
