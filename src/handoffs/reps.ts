import { insideWindow } from '../compliance/contact-hours.js';

/** A rep's working hours: local weekdays and a daily window, read in the rep's time zone. */
export interface WorkingHours {
  days: string[];
  start: string;
  end: string;
}

/** What assignment needs to know of a rep. */
export interface Rep {
  id: string;
  isAway: boolean;
  capacity: number | null;
  workingHours: WorkingHours | null;
  timeZone: string | null;
}

const WEEKDAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

function localWeekday(at: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short' }).format(at).slice(0, 3).toLowerCase();
  return WEEKDAY_NAMES.includes(name) ? name : 'sun';
}

/** Inside the rep's working hours at `at` (no hours set: always). The zone falls back to the organization's. */
export function withinHours(rep: Rep, at: Date, fallbackZone: string): boolean {
  const hours = rep.workingHours;
  if (!hours) return true;
  const zone = rep.timeZone ?? fallbackZone;
  if (!hours.days.includes(localWeekday(at, zone))) return false;
  return insideWindow(at, zone, { start: hours.start, end: hours.end });
}

export interface Load {
  open: number;
  lastAt: string | null;
  /** Leads the rep owns: the tie-break after open hand-offs (what rotates assignment on creation). */
  owned?: number;
}

/**
 * Round-robin: of the pool's reps that are available (not away, inside their
 * hours, under their capacity), the one with the fewest open hand-offs; ties
 * go to the one owning fewer leads, then to the one given a hand-off longest ago (never given one first), then to
 * pool order. Null when nobody is available. Pure: the caller serialises the
 * choice per organization, so concurrent hand-offs see each other's counts.
 */
export function pickRep(
  pool: readonly string[],
  reps: readonly Rep[],
  loads: ReadonlyMap<string, Load>,
  at: Date,
  fallbackZone: string,
  exclude: readonly string[] = [],
): string | null {
  const byId = new Map(reps.map((r) => [r.id, r]));
  const candidates = pool
    .map((id, index) => ({ rep: byId.get(id), index, load: loads.get(id) ?? { open: 0, lastAt: null } }))
    .filter((c): c is { rep: Rep; index: number; load: Load } => !!c.rep)
    .filter((c) => !exclude.includes(c.rep.id) && !c.rep.isAway && withinHours(c.rep, at, fallbackZone))
    .filter((c) => c.rep.capacity === null || c.load.open < c.rep.capacity);
  candidates.sort(
    (a, b) =>
      a.load.open - b.load.open ||
      (a.load.owned ?? 0) - (b.load.owned ?? 0) ||
      (a.load.lastAt ?? '').localeCompare(b.load.lastAt ?? '') ||
      a.index - b.index,
  );
  return candidates[0]?.rep.id ?? null;
}
