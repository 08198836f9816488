/**
 * Provider error codes and what Parley does about each class
 * (docs/deliverability.md has the same table for operators):
 *
 * - opted_out: the recipient opted out at the carrier or provider: an sms
 *   opt-out is recorded (source `carrier`, as if the lead had sent STOP,
 *   without a confirmation). Never retried.
 * - invalid / unreachable: the address cannot receive the channel: it is
 *   marked unreachable on it and the gate blocks it (UNREACHABLE) until the
 *   lead's address changes. Never retried.
 * - filtered: the carrier or provider blocked the message: counted; a
 *   campaign whose recent sends pass the threshold pauses itself. Never retried.
 * - unregistered_sender: the sending number may not send (an unverified
 *   toll-free number, an unregistered 10DLC number): it is marked unusable,
 *   the pool stops assigning it and an event tells the organization. Never retried.
 * - transient: a queue, a rate limit: retried with backoff. A timeout or
 *   an HTTP 5xx needs no code: Twilio may have taken the message, so it is
 *   reconciled with Twilio first and then retried (channels/in-doubt.ts).
 * A code not in the table is `unknown`: handled as before (the HTTP status of
 * a refused request decides; a delivery report is recorded).
 */
export const ERROR_CLASSES = [
  'opted_out',
  'invalid',
  'unreachable',
  'filtered',
  'unregistered_sender',
  'transient',
  'unknown',
] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

/** The classes a send is never retried after. */
export const PERMANENT: ReadonlySet<ErrorClass> = new Set([
  'opted_out',
  'invalid',
  'unreachable',
  'filtered',
  'unregistered_sender',
]);

export interface ErrorCodeEntry {
  code: string;
  class: Exclude<ErrorClass, 'unknown'>;
  title: string;
  /** Where the code is documented. */
  source: string;
}

const twilio = (code: number, cls: ErrorCodeEntry['class'], title: string): ErrorCodeEntry => ({
  code: String(code),
  class: cls,
  title,
  source: `https://www.twilio.com/docs/api/errors/${code}`,
});

/** Twilio's codes, from its error pages (the `source` of each). */
export const TWILIO_ERROR_CODES: readonly ErrorCodeEntry[] = [
  twilio(21610, 'opted_out', 'Attempt to send to unsubscribed recipient'),
  twilio(21211, 'invalid', "Invalid 'To' Phone Number"),
  twilio(21614, 'invalid', "'To' number is not a valid mobile number"),
  twilio(30005, 'invalid', 'Unknown destination handset'),
  twilio(21612, 'unreachable', "The 'To' phone number is not currently reachable via SMS"),
  twilio(30003, 'unreachable', 'Unreachable destination handset'),
  twilio(30006, 'unreachable', 'Landline or unreachable carrier'),
  twilio(30007, 'filtered', 'Message filtered'),
  twilio(30032, 'unregistered_sender', 'Toll-Free Number Has Not Been Verified'),
  twilio(30034, 'unregistered_sender', 'Message from an Unregistered Number (US A2P 10DLC)'),
  twilio(20429, 'transient', 'Too Many Requests'),
  // 21611 is a queue limit of the sending number, not a bad recipient: it passes as the queue drains.
  twilio(21611, 'transient', "This 'From' number has exceeded the maximum number of queued messages"),
  twilio(30001, 'transient', 'Queue overflow'),
  twilio(30008, 'transient', 'Unknown error'),
  twilio(30017, 'transient', 'Carrier network congestion'),
  twilio(30022, 'transient', 'US A2P 10DLC - Rate Limits Exceeded'),
];

const BY_TWILIO_CODE = new Map(TWILIO_ERROR_CODES.map((e) => [e.code, e]));

/** A provider's error: which provider, and its code as it gave it. */
export interface ProviderError {
  provider: 'twilio' | 'smtp';
  code: string;
}

export interface ClassifiedError extends ProviderError {
  class: ErrorClass;
  /** `twilio:30007`: what messages.error_code stores and events carry. */
  key: string;
  title: string | null;
}

/**
 * SMTP: a 5xx reply, or a DSN status 5.x.x, is a hard bounce (the mailbox
 * does not exist or refuses mail for good: `invalid`); a 4xx reply or 4.x.x
 * status is a soft one (a full mailbox, a greylisting server: `transient`,
 * retried). RFC 5321 section 4.2.1 and RFC 3463 section 3.1.
 */
function smtpClass(code: string): ErrorClass {
  const first = code.trim()[0];
  if (first === '5') return 'invalid';
  if (first === '4') return 'transient';
  return 'unknown';
}

export function classify(e: ProviderError): ClassifiedError {
  const code = e.code.trim();
  if (e.provider === 'smtp') {
    const cls = smtpClass(code);
    return {
      ...e,
      code,
      class: cls,
      key: `smtp:${code}`,
      title: cls === 'invalid' ? 'hard bounce' : cls === 'transient' ? 'soft bounce' : null,
    };
  }
  const entry = BY_TWILIO_CODE.get(code);
  return { ...e, code, class: entry?.class ?? 'unknown', key: `twilio:${code}`, title: entry?.title ?? null };
}

/** The error a stored key (`twilio:30034`, as classify writes it; a bare code is Twilio's) stands for, classified again. */
export function classifyKey(key: string): ClassifiedError {
  const [provider, code] = key.includes(':') ? key.split(':', 2) : ['twilio', key];
  return classify({ provider: provider === 'smtp' ? 'smtp' : 'twilio', code: code ?? key });
}

export const isPermanent = (c: ErrorClass): boolean => PERMANENT.has(c);
