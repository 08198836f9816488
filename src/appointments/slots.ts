import { instantsAtLocal, localTime } from '../compliance/contact-window.js';

/**
 * The embedded calendar's arithmetic, pure: weekly hours in a zone turned
 * into bookable slots, and an appointment turned into the 15-minute blocks it
 * holds on its owner's calendar (appointment_slots: one row per block, so two
 * bookings of one owner that overlap at all collide on a primary key).
 */

export const BLOCK_MS = 15 * 60_000;
const DAY_MS = 24 * 3_600_000;
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

export interface Slot {
  start: string;
  end: string;
}

/** The block starts (ISO) an appointment from start to end covers. */
export function blocksOf(start: Date, end: Date): string[] {
  const out: string[] = [];
  for (let t = Math.floor(start.getTime() / BLOCK_MS) * BLOCK_MS; t < end.getTime(); t += BLOCK_MS)
    out.push(new Date(t).toISOString());
  return out;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export interface SlotQuery {
  from: Date;
  to: Date;
  durationMinutes: number;
  /** The zone the weekly hours are written in. */
  timeZone: string;
  weeklyHours: Partial<Record<string, string[][]>>;
  /** Blocks already held on the owner's calendar. */
  taken: Set<string>;
  limit: number;
}

/**
 * Free slots between from and to, earliest first: each range of the weekly
 * hours cut into back-to-back slots of the duration, from its start, in the
 * calendar's own zone (so a 09:00 opening is 09:00 there whatever daylight
 * saving does); a slot with any block taken is left out.
 */
export function freeSlots(q: SlotQuery): Slot[] {
  const out: Slot[] = [];
  const durationMs = q.durationMinutes * 60_000;
  const firstDay = Math.floor(localTime(q.timeZone, q.from.getTime()).wall / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(localTime(q.timeZone, q.to.getTime()).wall / DAY_MS) * DAY_MS;
  for (let day = firstDay; day <= lastDay && out.length < q.limit; day += DAY_MS) {
    // biome-ignore lint/style/noNonNullAssertion: getUTCDay() is 0-6, an index of DAYS
    const ranges = [...(q.weeklyHours[DAYS[new Date(day).getUTCDay()]!] ?? [])].sort((a, b) =>
      String(a[0]).localeCompare(String(b[0])),
    );
    for (const [open = '00:00', close = '00:00'] of ranges) {
      for (
        let m = minutesOf(open);
        m + q.durationMinutes <= minutesOf(close) && out.length < q.limit;
        m += q.durationMinutes
      ) {
        // A wall time skipped by daylight saving has no instant; one repeated has two: the first is taken.
        const at = instantsAtLocal(q.timeZone, day + m * 60_000)[0];
        if (at === undefined) continue;
        const start = new Date(at);
        const end = new Date(at + durationMs);
        if (start < q.from || end > q.to) continue;
        if (blocksOf(start, end).some((b) => q.taken.has(b))) continue;
        out.push({ start: start.toISOString(), end: end.toISOString() });
      }
    }
  }
  return out;
}

/** A slot as the lead reads it: in the lead's zone and language (`Thu, Jul 2, 2:00 PM PDT`). */
export function slotLabel(start: string, timeZone: string, locale: string): string {
  const fmt = (loc: string) =>
    new Intl.DateTimeFormat(loc, {
      timeZone,
      weekday: 'short',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
    }).format(new Date(start));
  try {
    return fmt(locale);
  } catch {
    return fmt('en-US');
  }
}
