import type { Selectable } from 'kysely';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { LeadRow } from '../lead-records/leads.repository.js';
import type { Clock } from '../platform/clock.js';
import type { Db, MessagesTable } from '../platform/db/schema.js';
import { depart, freshHoldMs, giveBack, MAX_HOLD_MS, reserve, type Bucket, type Limits } from './pacing.js';
import { countSegments } from './segments.js';
import * as repo from './sending-numbers.repository.js';

/**
 * Which number an allowed sms or voice send goes out from, and when.
 * - settings: the organization has no pool number of the channel: today's
 *   behaviour exactly (settings `sendingNumber`, unpaced).
 * - now: a pool number whose slot has come or is a moment away; it leaves at
 *   `departAt` (now, or held for its slot or up to a second behind the
 *   number's previous departure).
 * - later: a slot the job waits for (a first one, or a fresh one when the
 *   number fell behind). The slot is recorded on the message (paced_until),
 *   and a later run of the job (at the slot, or a retry) uses it without
 *   reserving again.
 * - too_late: no slot within the maximum wait; nothing was reserved.
 * `since`: when the message first asked for a slot (the maximum wait counts from it).
 */
export type SenderChoice =
  | { kind: 'settings'; from: string | null; segments: number | null }
  | { kind: 'now'; from: string; numberId: string; slot: Date; departAt: Date; since: Date; segments: number | null }
  | { kind: 'later'; until: Date; number: string; numberId: string; since: Date; segments: number | null }
  | { kind: 'too_late'; reason: string; segments: number | null };

type Sendable = Pick<
  Selectable<MessagesTable>,
  'channel' | 'text' | 'sending_number_id' | 'paced_until' | 'paced_since'
>;

const callingCode = (phone: string): string | undefined => parsePhoneNumberFromString(phone)?.countryCallingCode;

/**
 * The number a lead meets first: one in its NANP area code (+1 and the next 3
 * digits), else one of its country calling code, else any; among those the one
 * with the fewest leads, the oldest on a tie (the pool is read in id order).
 */
export function pickNumber<N extends Pick<repo.SendingNumberRow, 'number' | 'assigned_leads'>>(
  pool: N[],
  leadPhone: string | null,
): N {
  let preferred: N[] = [];
  if (leadPhone?.startsWith('+1') && leadPhone.length >= 5)
    preferred = pool.filter((n) => n.number.startsWith(leadPhone.slice(0, 5)));
  if (preferred.length === 0 && leadPhone) {
    const code = callingCode(leadPhone);
    preferred = code === undefined ? [] : pool.filter((n) => callingCode(n.number) === code);
  }
  const candidates = preferred.length > 0 ? preferred : pool;
  return candidates.reduce((best, n) => (Number(n.assigned_leads) < Number(best.assigned_leads) ? n : best));
}

const bucketOf = (n: repo.SendingNumberRow): Bucket => ({
  nextSlotMs: Number(n.next_slot_ms),
  day: n.day,
  daySegments: Number(n.day_segments),
  departureMs: Number(n.departure_ms),
});
const limitsOf = (n: repo.SendingNumberRow): Limits => ({
  ratePerSecond: Number(n.rate_per_second),
  dailyCap: n.daily_cap === null ? null : Number(n.daily_cap),
});

/**
 * Called by the send path after the gate allowed the message, in the gate's
 * transaction and under the lead's lock, so a lead's first sends cannot stick
 * it to two numbers; the bucket is read and written under the number's row
 * lock. The lead's number (or the one the message holds a slot on) is read by
 * id, locked, in one statement; the pool is listed only for a lead without
 * one, which for an organization without a pool is one prepared read that
 * finds nothing.
 */
export async function chooseSender(
  trx: Db,
  organizationId: string,
  lead: LeadRow,
  message: Sendable,
  settingsNumber: string | null,
  clock: Clock,
  maxWaitMs: number,
): Promise<SenderChoice> {
  const channel = message.channel === 'voice' ? 'voice' : 'sms';
  const segments = message.channel === 'sms' ? countSegments(message.text).segments : null;

  // A slot given to an earlier run of this job is used as it is: reserving again would pay twice.
  if (message.paced_until !== null && message.sending_number_id !== null) {
    const reserved = await repo.findSendingNumber(trx, organizationId, message.sending_number_id, true);
    // The time is read once the number's lock is held: a send that waited for it must not book a departure in the past.
    // A number the carrier refused since (deliverability/) is not used: the send picks another.
    if (reserved && reserved.unusable_at === null)
      return whenSlotComes(
        trx,
        organizationId,
        reserved,
        message.paced_until,
        sinceOf(message),
        segments,
        clock.now().getTime(),
        maxWaitMs,
      );
  }

  const stickyId = channel === 'sms' ? lead.sms_sending_number_id : lead.voice_sending_number_id;
  let number = stickyId === null ? undefined : await repo.findSendingNumber(trx, organizationId, stickyId, true);
  // The lead's number was retired (the carrier refused it as a sender): the lead moves to a usable one.
  if (number?.unusable_at != null) number = undefined;
  if (!number) {
    const pool = await repo.listPool(trx, organizationId, channel);
    if (pool.length === 0) return { kind: 'settings', from: settingsNumber, segments };
    const picked = pickNumber(pool, lead.phone);
    number = await repo.assignLead(trx, organizationId, lead.id, channel, picked.id);
    if (!number) throw new Error(`sending number ${picked.id} vanished while in use`);
  }
  const nowMs = clock.now().getTime();
  // A message whose number was deleted while it waited keeps the time it first asked.
  const since = message.paced_since !== null ? Date.parse(message.paced_since) : nowMs;
  const limits = limitsOf(number);
  const r = reserve(bucketOf(number), limits, segments ?? 1, nowMs, maxWaitMs, since);
  if (r.kind === 'too_late') return { kind: 'too_late', reason: `${r.reason} (from ${number.number})`, segments };
  // A slot of now or a moment away leaves from this run (reserve() gives no slot further than a hold before the
  // departures booked, so a slot of now always does); a later one is waited for by the job.
  const d = depart(
    r.bucket,
    limits,
    segments ?? 1,
    r.slotMs,
    nowMs,
    r.slotMs <= nowMs ? MAX_HOLD_MS : freshHoldMs(limits, segments ?? 1),
  );
  if (d.kind === 'go') {
    await repo.saveBucket(trx, organizationId, number.id, d.bucket);
    return {
      kind: 'now',
      from: number.number,
      numberId: number.id,
      slot: new Date(r.slotMs),
      departAt: new Date(d.atMs),
      since: new Date(since),
      segments,
    };
  }
  await repo.saveBucket(trx, organizationId, number.id, r.bucket);
  return {
    kind: 'later',
    until: new Date(r.slotMs),
    number: number.number,
    numberId: number.id,
    since: new Date(since),
    segments,
  };
}

/** Rows paced before 0018 have no paced_since: their slot is the closest bound of when they asked. */
// biome-ignore lint/style/noNonNullAssertion: its only call is in chooseSender's paced_until !== null branch
const sinceOf = (message: Sendable): number => Date.parse(message.paced_since ?? message.paced_until!);

/**
 * A message that holds a slot on `number`: it waits for the slot, leaves
 * (within a hold behind the departures before it), or, when the number's
 * departures are booked further ahead than the hold because its workers fell
 * behind, gives its slot up for a fresh one at the end of the number's
 * schedule instead of adding to a burst. The fresh slot still has to be
 * within the maximum wait of when the message first asked for one, so a
 * message that keeps being caught behind ends PACING_TIMEOUT, never waits for ever.
 */
async function whenSlotComes(
  trx: Db,
  organizationId: string,
  number: repo.SendingNumberRow,
  pacedUntil: string,
  since: number,
  segments: number | null,
  nowMs: number,
  maxWaitMs: number,
): Promise<SenderChoice> {
  const slotMs = Date.parse(pacedUntil);
  const base = { number: number.number, numberId: number.id, since: new Date(since), segments };
  if (slotMs > nowMs) return { kind: 'later', until: new Date(slotMs), ...base };
  const bucket = bucketOf(number);
  const limits = limitsOf(number);
  const d = depart(bucket, limits, segments ?? 1, slotMs, nowMs);
  if (d.kind === 'go') {
    await repo.saveBucket(trx, organizationId, number.id, d.bucket);
    return {
      kind: 'now',
      from: number.number,
      numberId: number.id,
      slot: new Date(slotMs),
      departAt: new Date(d.atMs),
      since: new Date(since),
      segments,
    };
  }
  const returned = giveBack(bucket, segments ?? 1, slotMs);
  const r = reserve(returned, limits, segments ?? 1, nowMs, maxWaitMs, since);
  if (r.kind === 'too_late') {
    if (returned !== bucket) await repo.saveBucket(trx, organizationId, number.id, returned);
    return { kind: 'too_late', reason: `${r.reason} (from ${number.number})`, segments };
  }
  await repo.saveBucket(trx, organizationId, number.id, r.bucket);
  return { kind: 'later', until: new Date(r.slotMs), ...base };
}

/**
 * The number a reply to someone who called or wrote to `number` goes from:
 * that number, unless it is a pool number the carrier retired as a sender
 * (deliverability/), then the settings number (null: none to send from).
 */
export async function replySender(
  trx: Db,
  organizationId: string,
  number: string | null,
  settingsNumber: string | null,
): Promise<string | null> {
  if (number === null) return settingsNumber;
  if (!(await repo.isRetiredPoolNumber(trx, organizationId, number))) return number;
  return settingsNumber === number ? null : settingsNumber;
}
