import type { ChannelName } from '../lead-records/channels.js';

/**
 * Where an opt-out came from. Lead-made sources are the person's own request
 * (or their mailbox provider's, for a complaint); only the person can undo
 * them. `message` is what earlier versions called a plain-language opt-out;
 * it is read as `phrase`. `carrier`: the provider refused a send because the
 * number opted out at the carrier (Twilio 21610: the person texted STOP to
 * the number there); the person lifts it as a STOP, by texting START.
 */
export const OPT_OUT_SOURCES = [
  'api',
  'keyword',
  'phrase',
  'message',
  'link',
  'bounce',
  'complaint',
  'voice',
  'ai',
  'dnc',
  'carrier',
  'spoken',
] as const;
export type OptOutSource = (typeof OPT_OUT_SOURCES)[number];

/** Who is asking to lift an opt-out. */
export type Lifter =
  /** `POST /v1/leads/{id}/resubscribe` (an organization's key). */
  | { kind: 'api' }
  /** The person's own opt-in keyword (START, YES, UNSTOP, or the organization's own), from the opted-out address, on `channel`, through a verified provider webhook or an `inbound:write` key. */
  | { kind: 'lead'; channel: ChannelName }
  /** The DNC entry of the number was removed. */
  | { kind: 'dnc-removal' };

/**
 * The one table of who may lift what (README, "Compliance"). An opt-out the
 * lead made by text is lifted only by the lead's START by text; one made on
 * a call, by link or by complaint is not lifted through Parley at all (the
 * person gives fresh consent to the organization, which records it under a
 * new address or by its own process); the organization's own API opt-out is
 * lifted by the API; a DNC opt-out by removing the DNC entry.
 */
export function mayLift(source: string | null, channel: ChannelName, by: Lifter): boolean {
  switch (source) {
    case null:
      return true;
    case 'api':
    case 'bounce':
      return by.kind === 'api';
    case 'keyword':
    case 'phrase':
    case 'message':
    case 'ai':
    case 'carrier':
      // By text, from the number: lifts the number's channels (voice carries a text opt-out only when the
      // organization couples sms and voice). An email address has no START.
      return by.kind === 'lead' && by.channel === 'sms' && channel !== 'email';
    case 'dnc':
      return by.kind === 'dnc-removal' && channel !== 'email';
    default:
      // link, complaint, voice, and any source this version does not know: never lifted here.
      return false;
  }
}

/**
 * When a channel already opted out is opted out again, the source recorded is
 * the one that is hardest to lift (mayLift), so a later API opt-out never
 * turns the lead's own STOP into something the API could undo, and a later
 * STOP never turns an opt-out made on a call, by link or by complaint (which
 * nothing here lifts) into one a START would lift. Equal ranks are lifted the
 * same way, so the newer source is kept.
 */
const STRENGTH: Record<string, number> = {
  api: 1,
  bounce: 2,
  ai: 3,
  message: 3,
  phrase: 3,
  keyword: 4,
  carrier: 4,
  dnc: 5,
  link: 6,
  voice: 6,
  spoken: 6,
  complaint: 6,
};

export function strongerSource(current: string | null, next: string): string {
  if (current === null) return next;
  return (STRENGTH[next] ?? 7) >= (STRENGTH[current] ?? 7) ? next : current;
}
