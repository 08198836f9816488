/**
 * Pacing of one sending number as virtual scheduling (GCRA), twice over.
 *
 * Slots: the number's row holds the earliest instant the next segment may be
 * scheduled (`nextSlotMs`). A send of k segments takes the slot
 * max(nextSlotMs, now) and moves nextSlotMs to slot + k / rate. Reservations
 * are made one at a time under the number's row lock
 * (sending-numbers.repository.ts), so however many worker processes share
 * the database, the slots they hand out are spaced by exactly the rate.
 *
 * Departures: slots say when a send may go, not when it does. A worker that
 * falls behind (a stall, a backlog of first claims ahead of the slots) would
 * send every passed slot at once, and the provider would see a burst. So the
 * row also holds the earliest instant the next segment may actually leave
 * (`departureMs`), moved the same way when a send leaves: over any T seconds
 * the segments handed to the provider are at most rate * T plus the segments
 * of one message. A send whose slot came is held by its worker until its
 * departure if that is at most MAX_HOLD_MS away; further behind, it takes a
 * fresh slot instead (holding it would only queue the burst in the workers).
 * A send given a slot a moment away is held for it too (freshHoldMs): a
 * second claim and judgement are not worth that wait.
 *
 * The daily cap counts segments by the UTC day of their slot; a send that
 * would pass it takes a slot at the next UTC midnight instead.
 */

export interface Bucket {
  nextSlotMs: number;
  /** The UTC day `daySegments` counts (YYYY-MM-DD), or null before the first send. */
  day: string | null;
  daySegments: number;
  departureMs: number;
}

export interface Limits {
  ratePerSecond: number;
  dailyCap: number | null;
}

export type Reservation = { kind: 'reserved'; slotMs: number; bucket: Bucket } | { kind: 'too_late'; reason: string };

export type Departure = { kind: 'go'; atMs: number; bucket: Bucket } | { kind: 'behind' };

/**
 * The longest a worker holds a send whose slot came for its departure. Short
 * enough that the gate's decision is still fresh when it leaves (a STOP in
 * between is not seen), long enough for the jitter of polling workers.
 */
export const MAX_HOLD_MS = 1000;

const DAY_MS = 86_400_000;

export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const nextUtcMidnight = (ms: number): number => (Math.floor(ms / DAY_MS) + 1) * DAY_MS;

/** A wait for people: hours to one decimal, or minutes, or seconds when shorter. */
const hours = (ms: number): string =>
  ms >= 3_600_000
    ? `${Math.round((ms / 3_600_000) * 10) / 10} h`
    : ms >= 60_000
      ? `${Math.round(ms / 60_000)} min`
      : `${Math.ceil(ms / 1000)} s`;

/**
 * Where a send of `segments` goes in the bucket, or why it cannot go within
 * `maxWaitMs` of `sinceMs`, when the message first asked for a slot (now,
 * unless it is taking a fresh one); then nothing is reserved. No slot is
 * given further than MAX_HOLD_MS before the departures already booked, so a
 * send whose slot comes on time leaves within that hold.
 */
export function reserve(
  bucket: Bucket,
  limits: Limits,
  segments: number,
  nowMs: number,
  maxWaitMs: number,
  sinceMs = nowMs,
): Reservation {
  let slot = Math.max(bucket.nextSlotMs, bucket.departureMs - MAX_HOLD_MS, nowMs);
  let used = bucket.day === utcDay(slot) ? bucket.daySegments : 0;
  if (limits.dailyCap !== null) {
    if (segments > limits.dailyCap) {
      return {
        kind: 'too_late',
        reason: `the message is ${segments} segments, more than the number's daily cap of ${limits.dailyCap}`,
      };
    }
    if (used + segments > limits.dailyCap) {
      slot = nextUtcMidnight(slot);
      used = 0;
    }
  }
  if (slot - sinceMs > maxWaitMs) {
    const away =
      sinceMs < nowMs
        ? `${hours(slot - nowMs)} away, ${hours(slot - sinceMs)} after the message first asked for one`
        : `${hours(slot - nowMs)} away`;
    return {
      kind: 'too_late',
      reason:
        `the sending number's next free slot is ${away} (rate ${limits.ratePerSecond} segments/s` +
        `${limits.dailyCap === null ? '' : `, daily cap ${limits.dailyCap}`}), beyond the maximum wait of ${hours(maxWaitMs)}`,
    };
  }
  return {
    kind: 'reserved',
    slotMs: slot,
    bucket: {
      ...bucket,
      nextSlotMs: slot + (segments * 1000) / limits.ratePerSecond,
      day: utcDay(slot),
      daySegments: used + segments,
    },
  };
}

/**
 * When a send leaves, not before `slotMs`: at once, or after a hold of at
 * most MAX_HOLD_MS (for its slot, or behind the departures before it);
 * `behind` when that would be further ahead (nothing is booked then).
 */
export function depart(
  bucket: Bucket,
  limits: Limits,
  segments: number,
  slotMs: number,
  nowMs: number,
  maxHoldMs = MAX_HOLD_MS,
): Departure {
  const at = Math.max(bucket.departureMs, slotMs, nowMs);
  if (at - nowMs > maxHoldMs) return { kind: 'behind' };
  return { kind: 'go', atMs: at, bucket: { ...bucket, departureMs: at + (segments * 1000) / limits.ratePerSecond } };
}

/**
 * How long a send just given a slot is held for it rather than deferred: two
 * sends' worth of the rate, at most MAX_HOLD_MS. A held send keeps one of its
 * worker's job slots, so a fast number's backlog must not fill them all.
 */
export const freshHoldMs = (limits: Limits, segments: number): number =>
  Math.min(MAX_HOLD_MS, (2 * segments * 1000) / limits.ratePerSecond);

/** The bucket without a slot given up for a fresh one: its segments no longer count against its day's cap. */
export function giveBack(bucket: Bucket, segments: number, slotMs: number): Bucket {
  return bucket.day === utcDay(slotMs)
    ? { ...bucket, daySegments: Math.max(0, bucket.daySegments - segments) }
    : bucket;
}
