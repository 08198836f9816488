/**
 * Stricter regional calling/texting windows for telemarketing and
 * solicitation, which an organization can switch on (`regionalRules`).
 *
 * NOT LEGAL ADVICE. This is a hand-maintained summary of state "mini-TCPA"
 * and telemarketing rules, as researched in November 2026 from the statutes
 * cited in each row (or, where a row says "secondary", from compliance
 * vendors' published state tables rather than the statute text). Most of
 * these rules apply to *telephone solicitation* (sales calls and texts) and
 * have exemptions (prior express consent, established business relationship,
 * ...) that this table deliberately ignores: when the organization switches
 * regional rules on, the stricter window always applies. Rules change; have
 * counsel review this table before relying on it.
 *
 * Every window is the lead's local time, `[start, end)`, "HH:MM". A row is
 * data only: `contact-window.ts` is the one place that interprets it.
 */

/** TCPA: no telephone solicitation before 8 a.m. or after 9 p.m. at the called party's location (47 CFR 64.1200(c)(1)). */
export const FEDERAL_US_WINDOW = { start: '08:00', end: '21:00' } as const;

/**
 * The night floor: the window every contact the organization starts keeps to,
 * wherever the lead is (the TCPA's hours, applied outside the US too: Madrid
 * gets 08:00-21:00 local like Miami), whatever the organization's own hours.
 */
export const LEGAL_FLOOR: ClockWindow = FEDERAL_US_WINDOW;

export interface ClockWindow {
  start: string;
  end: string;
}

/**
 * A holiday, as data:
 * - `{ month, day }`: a fixed date. When it falls on a Saturday the Friday before
 *   is blocked too, and when on a Sunday the Monday after: states differ on
 *   which day is "observed", so both are blocked (conservative).
 * - `{ month, weekday, nth }`: the nth weekday of the month (nth -1 = the last),
 *   moved by `offsetDays` (e.g. Election Day: the Tuesday after the first Monday).
 * - `{ easterOffset }`: days from (Western) Easter Sunday (Good Friday -2, Mardi Gras -47).
 */
export type HolidayRule =
  | { name: string; month: number; day: number }
  | { name: string; month: number; weekday: number; nth: number; offsetDays?: number }
  | { name: string; easterOffset: number };

/** US federal legal public holidays, 5 U.S.C. § 6103(a). The base list for every row with `closedOnHolidays`. */
export const FEDERAL_HOLIDAYS: readonly HolidayRule[] = [
  { name: "New Year's Day", month: 1, day: 1 },
  { name: 'Birthday of Martin Luther King, Jr.', month: 1, weekday: 1, nth: 3 },
  { name: "Washington's Birthday", month: 2, weekday: 1, nth: 3 },
  { name: 'Memorial Day', month: 5, weekday: 1, nth: -1 },
  { name: 'Juneteenth National Independence Day', month: 6, day: 19 },
  { name: 'Independence Day', month: 7, day: 4 },
  { name: 'Labor Day', month: 9, weekday: 1, nth: 1 },
  { name: 'Columbus Day', month: 10, weekday: 1, nth: 2 },
  { name: 'Veterans Day', month: 11, day: 11 },
  { name: 'Thanksgiving Day', month: 11, weekday: 4, nth: 4 },
  { name: 'Christmas Day', month: 12, day: 25 },
];

export interface RegionalWindow {
  /** ISO 3166-2 code of the lead's state, as `regionOfPhone` returns it. */
  region: string;
  /** The window on every day without an entry in `dayWindows`. */
  start: string;
  end: string;
  /** Local weekdays (0 = Sunday) with no solicitation at all. */
  closedWeekdays?: readonly number[];
  /** A different window on some local weekdays (0 = Sunday). */
  dayWindows?: Readonly<Partial<Record<number, ClockWindow>>>;
  /** No solicitation on FEDERAL_HOLIDAYS (and `extraHolidays`), by the lead's local date. */
  closedOnHolidays?: boolean;
  /** The state's own legal holidays on top of the federal ones (only with `closedOnHolidays`). */
  extraHolidays?: readonly HolidayRule[];
  source: string;
}

/** One row per state, sorted by region. */
export const REGIONAL_WINDOWS: readonly RegionalWindow[] = [
  {
    region: 'US-AL',
    start: '08:00',
    end: '20:00',
    closedWeekdays: [0],
    closedOnHolidays: true,
    // Ala. Code § 1-3-8; Mardi Gras is a legal holiday only in Baldwin and Mobile counties, blocked state-wide here.
    extraHolidays: [
      { name: 'Mardi Gras', easterOffset: -47 },
      { name: 'Confederate Memorial Day', month: 4, weekday: 1, nth: 4 },
      { name: "Jefferson Davis' Birthday", month: 6, weekday: 1, nth: 1 },
    ],
    source:
      'Ala. Admin. Code r. 770-X-5-.17(1)(b) (no solicitation calls on Sundays or holidays, none before 8 a.m. or after 8 p.m.); holidays Ala. Code § 1-3-8',
  },
  {
    region: 'US-CT',
    start: '09:00',
    end: '20:00',
    source: 'Conn. Gen. Stat. § 42-288a as amended by Public Act 23-98 (2023)',
  },
  {
    region: 'US-FL',
    start: '08:00',
    end: '20:00',
    source: 'Fla. Stat. § 501.616(6)(a), Florida Telephone Solicitation Act amendments (SB 1120, 2021)',
  },
  {
    region: 'US-KY',
    start: '10:00',
    end: '21:00',
    source: 'KRS 367.46955 (secondary: state calling-hours tables)',
  },
  {
    region: 'US-LA',
    start: '08:00',
    end: '20:00',
    closedWeekdays: [0],
    closedOnHolidays: true,
    // La. R.S. 1:55 legal holidays beyond the federal list (the LPSC publishes its own list; this is a subset of it).
    extraHolidays: [
      { name: 'Mardi Gras', easterOffset: -47 },
      { name: 'Good Friday', easterOffset: -2 },
    ],
    source:
      'La. R.S. 45:811 (8 a.m.-8 p.m. Monday-Saturday, not on Sundays or state holidays); LPSC Do Not Call General Order R-29617',
  },
  {
    region: 'US-MA',
    start: '08:00',
    end: '20:00',
    source: 'M.G.L. c. 159C § 4 (secondary: state calling-hours tables)',
  },
  {
    region: 'US-MD',
    start: '08:00',
    end: '20:00',
    source: 'Md. Code, Com. Law § 14-4501 et seq., Stop the Spam Calls Act of 2023 (SB 90), in force 2024-01-01',
  },
  {
    region: 'US-MI',
    start: '09:00',
    end: '21:00',
    source: 'Michigan Home Solicitation Sales Act, MCL 445.111 et seq. (secondary: state calling-hours tables)',
  },
  {
    region: 'US-MN',
    start: '09:00',
    end: '21:00',
    source: 'Minn. Stat. § 325E.27 (automatic dialing-announcing devices; secondary: state calling-hours tables)',
  },
  {
    region: 'US-MS',
    start: '08:00',
    end: '20:00',
    closedWeekdays: [0],
    // Sundays: Miss. Code § 77-3-723(1). Hours: § 77-3-603 reads 8 a.m.-9 p.m. Central; several
    // compliance tables give 8 p.m., and the stricter end is kept. Legal holidays were dropped
    // when the PSC rules (39 Miss. Admin. Code Pt. I, R. 1:28) were repealed in 2023-2024.
    source: 'Miss. Code § 77-3-723(1) (no solicitation on Sunday), § 77-3-603; Mississippi Telephone Solicitation Act',
  },
  {
    region: 'US-NM',
    start: '09:00',
    end: '21:00',
    source: 'N.M. Stat. § 57-12-22 (secondary: state calling-hours tables)',
  },
  {
    region: 'US-NV',
    start: '09:00',
    end: '20:00',
    source: 'NRS ch. 228 / 598 telephone solicitation (secondary: state calling-hours tables)',
  },
  {
    region: 'US-OK',
    start: '08:00',
    end: '20:00',
    source: 'Okla. Stat. tit. 15 § 775C.4, Telephone Solicitation Act of 2022 (HB 3168), in force 2022-11-01',
  },
  {
    region: 'US-PA',
    start: '08:00',
    end: '21:00',
    closedOnHolidays: true,
    extraHolidays: [
      { name: 'Good Friday', easterOffset: -2 },
      { name: 'Flag Day', month: 6, day: 14 },
      { name: 'Election Day', month: 11, weekday: 1, nth: 1, offsetDays: 1 },
    ],
    source:
      '73 P.S. § 2245(a)(10), Telemarketer Registration Act as amended by Act 73 of 2019 (no solicitation on legal holidays)',
  },
  {
    region: 'US-RI',
    start: '09:00',
    end: '18:00',
    closedWeekdays: [0],
    dayWindows: { 6: { start: '10:00', end: '17:00' } },
    closedOnHolidays: true,
    extraHolidays: [
      { name: 'Rhode Island Independence Day', month: 5, day: 4 },
      { name: 'Victory Day', month: 8, weekday: 1, nth: 2 },
    ],
    source:
      'R.I. Gen. Laws § 5-61-3.6 and § 5-61-2 "hours of operation" (9 a.m.-6 p.m. weekdays, 10 a.m.-5 p.m. Saturdays, never on Sundays or holidays)',
  },
  {
    region: 'US-TX',
    start: '09:00',
    end: '21:00',
    dayWindows: { 0: { start: '12:00', end: '21:00' } },
    source: 'Tex. Bus. & Com. Code § 301.051 (9 a.m.-9 p.m. weekdays and Saturday, noon-9 p.m. Sunday)',
  },
  {
    region: 'US-UT',
    start: '08:00',
    end: '21:00',
    closedWeekdays: [0],
    closedOnHolidays: true,
    extraHolidays: [{ name: 'Pioneer Day', month: 7, day: 24 }],
    source:
      'Utah Code § 13-25a-103(3) (not between 9 p.m. and 8 a.m., on a Sunday or on a legal holiday); holidays Utah Code § 63G-1-301',
  },
  {
    region: 'US-WA',
    start: '08:00',
    end: '20:00',
    source: "RCW 19.158.040(2) (not before 8:00 a.m. or after 8:00 p.m. at the recipient's local time); RCW 80.36.390",
  },
  {
    region: 'US-WY',
    start: '08:00',
    end: '20:00',
    source: 'Wyo. Stat. § 40-12-302 (secondary: state calling-hours tables)',
  },
];

const BY_REGION = new Map(REGIONAL_WINDOWS.map((row) => [row.region, row]));

/** The row for a region ('US-FL'), if any. */
export function regionalWindowFor(region: string | null): RegionalWindow | undefined {
  return region === null ? undefined : BY_REGION.get(region);
}

const pad = (n: number): string => String(n).padStart(2, '0');
const dateKey = (year: number, month: number, day: number): string => `${year}-${pad(month)}-${pad(day)}`;
const DAY_MS = 86_400_000;

/** Western (Gregorian) Easter Sunday, anonymous Gregorian algorithm: [month, day]. */
export function easterSunday(year: number): [number, number] {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return [month, day];
}

function keyOf(ms: number): string {
  const d = new Date(ms);
  return dateKey(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

/** The dates ('YYYY-MM-DD') one rule blocks for a year (a fixed date may also block an observed day next to it). */
export function holidayDates(rule: HolidayRule, year: number): string[] {
  if ('easterOffset' in rule) {
    const [month, day] = easterSunday(year);
    return [keyOf(Date.UTC(year, month - 1, day) + rule.easterOffset * DAY_MS)];
  }
  if ('day' in rule) {
    const at = Date.UTC(year, rule.month - 1, rule.day);
    const weekday = new Date(at).getUTCDay();
    const dates = [keyOf(at)];
    if (weekday === 6) dates.push(keyOf(at - DAY_MS));
    if (weekday === 0) dates.push(keyOf(at + DAY_MS));
    return dates;
  }
  let at: number;
  if (rule.nth > 0) {
    const first = Date.UTC(year, rule.month - 1, 1);
    const shift = (rule.weekday - new Date(first).getUTCDay() + 7) % 7;
    at = first + (shift + (rule.nth - 1) * 7) * DAY_MS;
  } else {
    const last = Date.UTC(year, rule.month, 0);
    const shift = (new Date(last).getUTCDay() - rule.weekday + 7) % 7;
    at = last - (shift + (-rule.nth - 1) * 7) * DAY_MS;
  }
  return [keyOf(at + (rule.offsetDays ?? 0) * DAY_MS)];
}

const holidayCache = new WeakMap<RegionalWindow, Map<number, ReadonlySet<string>>>();

/** The dates a row blocks as holidays in a year (including a January 1 observed on the previous December 31). */
export function regionalHolidays(row: RegionalWindow, year: number): ReadonlySet<string> {
  let byYear = holidayCache.get(row);
  if (!byYear) holidayCache.set(row, (byYear = new Map()));
  const cached = byYear.get(year);
  if (cached) return cached;
  const dates = new Set<string>();
  if (row.closedOnHolidays) {
    const rules = [...FEDERAL_HOLIDAYS, ...(row.extraHolidays ?? [])];
    // Rules of the years around it: New Year's Day on a Saturday blocks December 31 of the year before.
    for (const y of [year - 1, year, year + 1])
      for (const rule of rules) for (const d of holidayDates(rule, y)) if (d.startsWith(`${year}-`)) dates.add(d);
  }
  if (byYear.size > 64) byYear.clear();
  byYear.set(year, dates);
  return dates;
}

/** Whether a row blocks this local date ('YYYY-MM-DD') as a holiday. */
export function isRegionalHoliday(row: RegionalWindow, date: string): boolean {
  return regionalHolidays(row, Number(date.slice(0, 4))).has(date);
}
