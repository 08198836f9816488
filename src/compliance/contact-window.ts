import { LEGAL_FLOOR, isRegionalHoliday, regionalWindowFor, type RegionalWindow } from './regional-windows.js';

/**
 * When a lead may be contacted: the organization's own hours, the legal
 * floor and the stricter regional rules, in every zone the lead may be in.
 *
 * All checks read the lead's local wall clock (through Intl, so daylight
 * saving is whatever the IANA database says, never a fixed offset) and use
 * the local date of the instant itself: a window over midnight that starts on
 * an allowed Friday continues after midnight only if Saturday is allowed too.
 */
export interface ContactPolicy {
  /** The organization's own hours, "HH:MM", `[start, end)`; end before start runs over midnight; start == end means no limit. */
  start: string;
  end: string;
  /** Allowed local weekdays, 0 = Sunday .. 6 = Saturday. */
  weekdays: number[];
  /** 'YYYY-MM-DD' local dates with no contact. */
  holidays: string[];
  /** Apply the regional-windows row for the lead's region, on top of the legal floor. */
  regionalRules: boolean;
  /** Lift the organization's start/end/weekdays/holidays, never the legal window. */
  overrideOrganizationHours?: boolean;
  /**
   * The send answers the lead's own message within the reply window (compliance/gate.ts): the lead
   * started that exchange, so the legal floor and the regional window do not hold it. Only the gate
   * sets it; every other contact is bounded by the legal floor whatever the organization's settings.
   */
  answersLeadNow?: boolean;
}

export type WindowDecision = { inside: true } | { inside: false; opensAt: Date; reason: string };

/** How far ahead `contactWindow` looks for the next opening. */
export const SEARCH_DAYS = 8;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

// ---------------------------------------------------------------------------
// Local wall clock

/** A zone's wall clock at an instant, to the minute. */
export interface LocalTime {
  /** The wall clock read as if it were UTC, in epoch milliseconds (whole minutes). */
  wall: number;
  /** 'YYYY-MM-DD' */
  date: string;
  /** 0 = Sunday */
  weekday: number;
  /** Minutes since local midnight. */
  minute: number;
}

const MAX_FORMATTERS = 1_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** The wall clock of `timeZone` at epoch milliseconds `t` (throws a RangeError for an unknown zone). */
export function localTime(timeZone: string, t: number): LocalTime {
  let year = 0;
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  for (const part of formatter(timeZone).formatToParts(t)) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
    else if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  const midnight = Date.UTC(year, month - 1, day);
  return {
    wall: midnight + (hour * 60 + minute) * MINUTE,
    date: `${year}-${pad(month)}-${pad(day)}`,
    weekday: new Date(midnight).getUTCDay(),
    minute: hour * 60 + minute,
  };
}

const floorMinute = (t: number): number => Math.floor(t / MINUTE) * MINUTE;

/** UTC offset of the zone at `t`, in milliseconds (wall clock minus UTC). */
function offsetAt(timeZone: string, t: number): number {
  return localTime(timeZone, t).wall - floorMinute(t);
}

/**
 * The instants (whole minutes, ascending) at which the zone's wall clock reads
 * `wall`: none inside a spring-forward gap, two inside a fall-back overlap.
 */
export function instantsAtLocal(timeZone: string, wall: number): number[] {
  // The instant is within 14 hours of `wall`; the offsets 30 hours either side
  // are the ones before and after any single transition near it.
  const offsets = new Set([
    offsetAt(timeZone, wall - 30 * HOUR),
    offsetAt(timeZone, wall),
    offsetAt(timeZone, wall + 30 * HOUR),
  ]);
  const found = new Set<number>();
  for (const offset of offsets) {
    const t = wall - offset;
    if (localTime(timeZone, t).wall === wall) found.add(t);
  }
  return [...found].sort((a, b) => a - b);
}

/** Instants in (from, to] at which the zone's UTC offset changes (to the minute). */
export function offsetTransitions(timeZone: string, from: number, to: number): number[] {
  // Sampled every 12 hours, then bisected: no zone changes its offset twice
  // within 12 hours (changes are months apart), so none is missed.
  const STEP = 12 * HOUR;
  const out: number[] = [];
  // Offsets change on whole minutes: those in (from, to] are in (floorMinute(from), floorMinute(to)].
  const end = floorMinute(to);
  let lo = floorMinute(from);
  let loOffset = offsetAt(timeZone, lo);
  while (lo < end) {
    const hi = Math.min(lo + STEP, end);
    const hiOffset = offsetAt(timeZone, hi);
    if (hiOffset !== loOffset) {
      let a = lo;
      let b = hi;
      while (b - a > MINUTE) {
        const mid = a + Math.floor((b - a) / 2 / MINUTE) * MINUTE;
        if (offsetAt(timeZone, mid) === loOffset) a = mid;
        else b = mid;
      }
      out.push(b);
    }
    lo = hi;
    loOffset = hiOffset;
  }
  return out;
}

/**
 * The first instant after `at` at which the zone's wall clock reads
 * `minuteOfDay`, or, on a day daylight saving skips that time, the instant
 * the clock jumps past it.
 */
export function nextLocalClock(at: number, timeZone: string, minuteOfDay: number): number {
  const now = localTime(timeZone, at);
  const today = now.wall - now.minute * MINUTE;
  const transitions = offsetTransitions(timeZone, at, at + 2 * DAY);
  const found: number[] = [];
  // Today's, if still ahead, else tomorrow's.
  for (const day of [today, today + DAY]) {
    const wall = day + minuteOfDay * MINUTE;
    found.push(...instantsAtLocal(timeZone, wall));
    for (const t of transitions)
      if (localTime(timeZone, t - MINUTE).wall < wall && wall < localTime(timeZone, t).wall) found.push(t);
  }
  const next = found.filter((t) => t > at).sort((a, b) => a - b)[0];
  if (next === undefined) throw new Error(`no ${minuteOfDay} minutes past midnight within two days in ${timeZone}`);
  return next;
}

// ---------------------------------------------------------------------------
// Windows

interface Window {
  start: number;
  end: number;
  label: string;
}

function parseClock(hhmm: string): number {
  const match = /^(\d{2}):(\d{2})$/.exec(hhmm);
  const hours = Number(match?.[1]);
  const minutes = Number(match?.[2]);
  if (!match || hours > 23 || minutes > 59) throw new RangeError(`"${hhmm}" is not a clock time (HH:MM)`);
  return hours * 60 + minutes;
}

function toWindow(w: { start: string; end: string }): Window {
  return { start: parseClock(w.start), end: parseClock(w.end), label: `${w.start}-${w.end}` };
}

/** Inside `[start, end)` of the local day; end before start runs over midnight; start == end is always inside. */
export function minuteInside(minute: number, window: { start: number; end: number }): boolean {
  if (window.start === window.end) return true;
  return window.start < window.end
    ? minute >= window.start && minute < window.end
    : minute >= window.start || minute < window.end;
}

interface Rules {
  /** The organization's own hours, unless lifted by the override. */
  organization: { window: Window; weekdays: ReadonlySet<number>; holidays: ReadonlySet<string> } | null;
  /** LEGAL_FLOOR: 08:00-21:00 where the lead is, for every contact but a prompt reply to the lead. */
  legal: Window | null;
  regional: { row: RegionalWindow; window: Window; days: Partial<Record<number, Window>> } | null;
  /** Minutes of the local day where any check can change (window edges and midnight). */
  edges: number[];
}

function compile(policy: ContactPolicy, region: string | null): Rules {
  const override = policy.overrideOrganizationHours === true;
  const organization = override
    ? null
    : { window: toWindow(policy), weekdays: new Set(policy.weekdays), holidays: new Set(policy.holidays) };
  // The night floor: no setting lifts it (not unlimited hours, not the
  // override, not regional rules off), only a prompt reply to the lead.
  const floor = policy.answersLeadNow !== true;
  const legal = floor ? toWindow(LEGAL_FLOOR) : null;
  const row = floor && policy.regionalRules ? regionalWindowFor(region) : undefined;
  let regional: Rules['regional'] = null;
  if (row) {
    const days: Partial<Record<number, Window>> = {};
    for (const [day, w] of Object.entries(row.dayWindows ?? {})) if (w) days[Number(day)] = toWindow(w);
    regional = { row, window: toWindow(row), days };
  }
  const windows = [organization?.window, legal, regional?.window, ...Object.values(regional?.days ?? {})].filter(
    (w): w is Window => !!w,
  );
  const edges = [...new Set([0, ...windows.flatMap((w) => [w.start, w.end])])].sort((a, b) => a - b);
  return { organization, legal, regional, edges };
}

/** Why a zone's local time is not inside every window, or null when it is. Checks run in a fixed order; the first failing one is reported. */
function refusal(zone: string, local: LocalTime, rules: Rules): string | null {
  const { organization, legal, regional } = rules;
  if (organization) {
    if (organization.holidays.has(local.date)) return `holiday ${local.date}`;
    if (!organization.weekdays.has(local.weekday)) return `not a contact day (${DAY_NAMES[local.weekday]}) in ${zone}`;
    if (!minuteInside(local.minute, organization.window))
      return `outside contact hours ${organization.window.label} ${zone}`;
  }
  if (legal && !minuteInside(local.minute, legal)) return `outside the legal window ${legal.label} ${zone}`;
  if (regional) {
    const { row } = regional;
    if (row.closedWeekdays?.includes(local.weekday))
      return `no solicitation on ${DAY_NAMES[local.weekday]} (${row.region})`;
    if (isRegionalHoliday(row, local.date)) return `state holiday ${local.date} (${row.region})`;
    const window = regional.days[local.weekday] ?? regional.window;
    if (!minuteInside(local.minute, window)) return `outside the regional window ${window.label} (${row.region})`;
  }
  return null;
}

function refusalAt(t: number, zones: readonly string[], rules: Rules): string | null {
  for (const zone of zones) {
    const reason = refusal(zone, localTime(zone, t), rules);
    if (reason !== null) return reason;
  }
  return null;
}

/** A zone's offset changes over the whole search, worked out once per call. */
interface ZoneScan {
  zone: string;
  transitions: number[];
}

/**
 * The instants in (from, to] where some zone's verdict can change: each
 * window edge and midnight on every local day, and every offset change. The
 * verdict is constant between two consecutive ones.
 *
 * Whatever this returns, `contactWindow` only ever opens at an instant it has
 * checked itself: a missed edge could make it open later, never earlier.
 */
function edgeInstants(scan: ZoneScan, from: number, to: number, edges: readonly number[]): number[] {
  const { zone, transitions } = scan;
  const first = localTime(zone, from);
  const last = localTime(zone, to);
  // Without an offset change in (from, to] the offset is the one at `from`
  // throughout: a local time maps to at most one instant in the span.
  const steady = !transitions.some((t) => t > from && t <= to);
  const offset = first.wall - floorMinute(from);
  const out: number[] = [];
  for (let day = first.wall - first.minute * MINUTE; day <= last.wall; day += DAY) {
    for (const minute of edges) {
      const wall = day + minute * MINUTE;
      for (const t of steady ? [wall - offset] : instantsAtLocal(zone, wall)) if (t > from && t <= to) out.push(t);
    }
  }
  for (const t of transitions) if (t > from && t <= to) out.push(t);
  return out;
}

/**
 * Inside only when inside in every zone (the intersection of their windows).
 * Otherwise the earliest whole minute after `now` that is inside in every
 * zone, found by stepping over window edges (not minute by minute), searched
 * within SEARCH_DAYS; with none, `opensAt` is `now` + SEARCH_DAYS and the
 * reason says there is no common window.
 */
export function contactWindow(
  now: Date,
  zones: string[],
  policy: ContactPolicy,
  region: string | null,
): WindowDecision {
  if (zones.length === 0) throw new RangeError('contactWindow needs at least one time zone');
  const rules = compile(policy, region);
  const from = now.getTime();
  const reason = refusalAt(from, zones, rules);
  if (reason === null) return { inside: true };
  const to = from + SEARCH_DAYS * DAY;
  const scans = zones.map((zone) => ({ zone, transitions: offsetTransitions(zone, from, to) }));
  // A day at a time, so the usual case (open later today or tomorrow) stops early.
  for (let chunk = from; chunk < to; chunk += DAY) {
    const chunkEnd = Math.min(chunk + DAY, to);
    const candidates = [...new Set(scans.flatMap((scan) => edgeInstants(scan, chunk, chunkEnd, rules.edges)))].sort(
      (a, b) => a - b,
    );
    for (const t of candidates)
      if (refusalAt(t, zones, rules) === null) return { inside: false, opensAt: new Date(t), reason };
  }
  return {
    inside: false,
    opensAt: new Date(to),
    reason: `no common contact window within ${SEARCH_DAYS} days in ${zones.join(', ')} (${reason})`,
  };
}
