/**
 * Pacing of one sending number as virtual scheduling (GCRA): the number's row
 * holds the earliest instant the next segment may start (`nextSlotMs`). A send
 * of k segments takes the slot max(nextSlotMs, now) and moves nextSlotMs to
 * slot + k / rate. Reservations are made one at a time under the number's row
 * lock (sending-numbers.repository.ts), so however many worker processes
 * share the database, the slots they hand out are spaced by exactly the rate:
 * over any interval of T seconds, the segments whose slot falls in it are at
 * most rate * T plus the segments of one message.
 *
 * The daily cap counts segments by the UTC day of their slot; a send that
 * would pass it takes a slot at the next UTC midnight instead.
 */

export interface Bucket {
  nextSlotMs: number;
  /** The UTC day `daySegments` counts (YYYY-MM-DD), or null before the first send. */
  day: string | null;
  daySegments: number;
}

export interface Limits {
  ratePerSecond: number;
  dailyCap: number | null;
}

export type Reservation =
  | { kind: 'reserved'; slotMs: number; bucket: Bucket }
  | { kind: 'too_late'; reason: string };

const DAY_MS = 86_400_000;

export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const nextUtcMidnight = (ms: number): number => (Math.floor(ms / DAY_MS) + 1) * DAY_MS;

/** A wait for people: hours to one decimal, or minutes, or seconds when shorter. */
const hours = (ms: number): string =>
  ms >= 3_600_000 ? `${Math.round((ms / 3_600_000) * 10) / 10} h` : ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.ceil(ms / 1000)} s`;

/**
 * Where a send of `segments` goes in the bucket, or why it cannot go within
 * `maxWaitMs` (then nothing is reserved: the bucket is left as it was).
 */
export function reserve(bucket: Bucket, limits: Limits, segments: number, nowMs: number, maxWaitMs: number): Reservation {
  let slot = Math.max(bucket.nextSlotMs, nowMs);
  let used = bucket.day === utcDay(slot) ? bucket.daySegments : 0;
  if (limits.dailyCap !== null) {
    if (segments > limits.dailyCap) {
      return { kind: 'too_late', reason: `the message is ${segments} segments, more than the number's daily cap of ${limits.dailyCap}` };
    }
    if (used + segments > limits.dailyCap) {
      slot = nextUtcMidnight(slot);
      used = 0;
    }
  }
  if (slot - nowMs > maxWaitMs) {
    return {
      kind: 'too_late',
      reason: `the sending number's next free slot is ${hours(slot - nowMs)} away (rate ${limits.ratePerSecond} segments/s` +
        `${limits.dailyCap === null ? '' : `, daily cap ${limits.dailyCap}`}), beyond the maximum wait of ${hours(maxWaitMs)}`,
    };
  }
  return {
    kind: 'reserved',
    slotMs: slot,
    bucket: { nextSlotMs: slot + (segments * 1000) / limits.ratePerSecond, day: utcDay(slot), daySegments: used + segments },
  };
}
