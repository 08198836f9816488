import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { LeadRow } from '../leads/leads.repository.js';
import type { MessageRow } from '../messages/messages.repository.js';
import type { Db } from '../platform/db/schema.js';
import { reserve } from './pacing.js';
import { countSegments } from './segments.js';
import * as repo from './sending-numbers.repository.js';

/**
 * Which number an allowed sms or voice send goes out from, and when.
 * - settings: the organization has no pool number of the channel: today's
 *   behaviour exactly (settings `sendingNumber`, unpaced).
 * - now / later: a pool number, with a slot reserved on its bucket (now, or a
 *   slot the job waits for). The slot is recorded on the message (paced_until),
 *   and a later run of the job (at the slot, or a retry) uses it without
 *   reserving again.
 * - too_late: no slot within the maximum wait; nothing was reserved.
 */
export type SenderChoice =
  | { kind: 'settings'; from: string | null; segments: number | null }
  | { kind: 'now'; from: string; numberId: string; slot: Date; segments: number | null }
  | { kind: 'later'; until: Date; number: string; numberId: string; segments: number | null }
  | { kind: 'too_late'; reason: string; segments: number | null };

type Sendable = Pick<MessageRow, 'channel' | 'text' | 'sending_number_id' | 'paced_until'>;

const callingCode = (phone: string): string | undefined => parsePhoneNumberFromString(phone)?.countryCallingCode;

/**
 * The number a lead meets first: one in its NANP area code (+1 and the next 3
 * digits), else one of its country calling code, else any; among those the one
 * with the fewest leads, the oldest on a tie (the pool is read in id order).
 */
export function pickNumber<N extends Pick<repo.SendingNumberRow, 'number' | 'assigned_leads'>>(pool: N[], leadPhone: string | null): N {
  let preferred: N[] = [];
  if (leadPhone?.startsWith('+1') && leadPhone.length >= 5) preferred = pool.filter((n) => n.number.startsWith(leadPhone.slice(0, 5)));
  if (preferred.length === 0 && leadPhone) {
    const code = callingCode(leadPhone);
    preferred = code === undefined ? [] : pool.filter((n) => callingCode(n.number) === code);
  }
  const candidates = preferred.length > 0 ? preferred : pool;
  return candidates.reduce((best, n) => (Number(n.assigned_leads) < Number(best.assigned_leads) ? n : best));
}

/**
 * Called by the send path after the gate allowed the message, in the gate's
 * transaction and under the lead's lock, so a lead's first sends cannot stick
 * it to two numbers; the bucket is read and written under the number's row lock.
 */
export async function chooseSender(trx: Db, organizationId: string, lead: LeadRow, message: Sendable, settingsNumber: string | null, now: Date, maxWaitMs: number): Promise<SenderChoice> {
  const channel = message.channel === 'voice' ? 'voice' : 'sms';
  const segments = message.channel === 'sms' ? countSegments(message.text).segments : null;
  const pool = await repo.listSendingNumbers(trx, organizationId, channel);
  if (pool.length === 0) return { kind: 'settings', from: settingsNumber, segments };

  // A slot given to an earlier run of this job is used as it is: reserving again would pay twice.
  const reserved = message.paced_until !== null ? pool.find((n) => n.id === message.sending_number_id) : undefined;
  if (reserved && message.paced_until !== null) {
    const until = new Date(message.paced_until);
    return until.getTime() <= now.getTime()
      ? { kind: 'now', from: reserved.number, numberId: reserved.id, slot: until, segments }
      : { kind: 'later', until, number: reserved.number, numberId: reserved.id, segments };
  }

  const stickyId = channel === 'sms' ? lead.sms_sending_number_id : lead.voice_sending_number_id;
  let number = pool.find((n) => n.id === stickyId);
  if (!number) {
    number = pickNumber(pool, lead.phone);
    await repo.assignLead(trx, organizationId, lead.id, channel, number.id);
  }
  const bucket = await repo.lockBucket(trx, organizationId, number.id);
  if (!bucket) throw new Error(`sending number ${number.id} vanished while in use`);
  const r = reserve(
    { nextSlotMs: Number(bucket.next_slot_ms), day: bucket.day, daySegments: Number(bucket.day_segments) },
    { ratePerSecond: Number(bucket.rate_per_second), dailyCap: bucket.daily_cap === null ? null : Number(bucket.daily_cap) },
    segments ?? 1, now.getTime(), maxWaitMs,
  );
  if (r.kind === 'too_late') return { kind: 'too_late', reason: `${r.reason} (from ${number.number})`, segments };
  await repo.saveBucket(trx, organizationId, number.id, r.bucket);
  return r.slotMs <= now.getTime()
    ? { kind: 'now', from: number.number, numberId: number.id, slot: new Date(r.slotMs), segments }
    : { kind: 'later', until: new Date(r.slotMs), number: number.number, numberId: number.id, segments };
}
