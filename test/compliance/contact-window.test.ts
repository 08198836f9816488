import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  SEARCH_DAYS,
  contactWindow,
  instantsAtLocal,
  localTime,
  minuteInside,
  nextLocalClock,
  offsetTransitions,
  type ContactPolicy,
  type WindowDecision,
} from '../../src/compliance/contact-window.js';
import {
  MAX_PHONE_ZONE_SPREAD_MINUTES,
  PHONE_CACHE_SIZE,
  clearPhoneCache,
  informativeZones,
  isPhoneCached,
  phoneCacheSize,
  regionFromGeocode,
  regionOfPhone,
  zoneSpreadMinutes,
  zonesForLead,
} from '../../src/compliance/lead-zones.js';
import {
  FEDERAL_HOLIDAYS,
  FEDERAL_US_WINDOW,
  REGIONAL_WINDOWS,
  easterSunday,
  holidayDates,
  isRegionalHoliday,
  regionalHolidays,
  regionalWindowFor,
  type RegionalWindow,
} from '../../src/compliance/regional-windows.js';

const ALL_DAYS = [0, 1, 2, 3, 4, 5, 6];
const WEEKDAYS = [1, 2, 3, 4, 5];
const NY = 'America/New_York';
const LA = 'America/Los_Angeles';
const CHI = 'America/Chicago';
const LONDON = 'Europe/London';
const ORG = 'America/Chicago';

const policy = (over: Partial<ContactPolicy> = {}): ContactPolicy => ({
  start: '08:00',
  end: '21:00',
  weekdays: ALL_DAYS,
  holidays: [],
  regionalRules: false,
  ...over,
});

const at = (iso: string): Date => new Date(iso);

function closed(decision: WindowDecision): { opensAt: string; reason: string } {
  if (decision.inside) throw new Error('expected a closed window, got inside');
  return { opensAt: decision.opensAt.toISOString(), reason: decision.reason };
}

// ---------------------------------------------------------------------------

describe('zonesForLead: lead zone, then phone zones, then the organization', () => {
  beforeAll(() => clearPhoneCache());

  it("uses the lead's own zone first, even with a phone elsewhere", async () => {
    expect(await zonesForLead({ timeZone: 'Europe/Paris', phone: '+14155550100' }, ORG)).toEqual({
      zones: ['Europe/Paris'],
      source: 'lead',
    });
  });

  it('skips an unknown lead zone and falls to the phone', async () => {
    expect(await zonesForLead({ timeZone: 'Mars/Olympus_Mons', phone: '+14155550100' }, ORG)).toEqual({
      zones: [LA],
      source: 'phone',
    });
    expect(await zonesForLead({ timeZone: '', phone: '+14155550100' }, ORG)).toEqual({ zones: [LA], source: 'phone' });
  });

  it('maps a +1 415 number to Los Angeles and a +1 305 number to New York', async () => {
    expect(await zonesForLead({ timeZone: null, phone: '+14155550100' }, ORG)).toEqual({
      zones: [LA],
      source: 'phone',
    });
    expect(await zonesForLead({ timeZone: null, phone: '+13055550100' }, ORG)).toEqual({
      zones: [NY],
      source: 'phone',
    });
  });

  it('keeps every zone of an area code that spans two (Idaho, Alaska)', async () => {
    expect(await zonesForLead({ timeZone: null, phone: '+12085550100' }, ORG)).toEqual({
      zones: ['America/Boise', LA],
      source: 'phone',
    });
    expect(await zonesForLead({ timeZone: null, phone: '+19075550100' }, ORG)).toEqual({
      zones: ['America/Adak', 'America/Anchorage'],
      source: 'phone',
    });
  });

  it('maps a UK mobile to the London family of zones', async () => {
    const { zones, source } = await zonesForLead({ timeZone: null, phone: '+447911123456' }, ORG);
    expect(source).toBe('phone');
    expect(zones).toContain(LONDON);
    expect(zones.every((z) => z.startsWith('Europe/'))).toBe(true);
  });

  it('ignores toll-free and other country-wide numbers (+1 800, +1 888, +1 500)', async () => {
    for (const phone of ['+18005550100', '+18885550100', '+15005550100']) {
      expect(await zonesForLead({ timeZone: null, phone }, ORG)).toEqual({ zones: [ORG], source: 'organization' });
    }
  });

  it('falls through for invalid, unparseable, national-format or missing phones', async () => {
    // '+1415555010' is a digit short: its 1 415 prefix alone would say Los Angeles.
    for (const phone of ['+11234567890', '+1415555010', 'not a phone', '4155550100', '+1', '', null]) {
      expect(await zonesForLead({ timeZone: null, phone }, ORG)).toEqual({ zones: [ORG], source: 'organization' });
    }
  });

  it('remembers each number once, whatever its spacing, and hands out copies', async () => {
    clearPhoneCache();
    const a = await zonesForLead({ timeZone: null, phone: '+1 415 555 0100' }, ORG);
    const b = await zonesForLead({ timeZone: null, phone: '+14155550100' }, ORG);
    await regionOfPhone('+1 (415) 555-0100');
    expect(phoneCacheSize()).toBe(1);
    a.zones.push('Mutated/Zone');
    expect(b.zones).toEqual([LA]);
    expect((await zonesForLead({ timeZone: null, phone: '+14155550100' }, ORG)).zones).toEqual([LA]);
    await zonesForLead({ timeZone: null, phone: 'not a phone' }, ORG);
    expect(phoneCacheSize()).toBe(1);
    expect(PHONE_CACHE_SIZE).toBe(10_000);
  });

  it('forgets the least recently used number past PHONE_CACHE_SIZE', async () => {
    clearPhoneCache();
    await regionOfPhone('+14155550100');
    await regionOfPhone('+13055550100');
    // Unparseable "+" numbers are remembered too, and cost no data look-up.
    for (let i = 0; i < PHONE_CACHE_SIZE - 2; i++) await regionOfPhone(`+0${i}`);
    expect(phoneCacheSize()).toBe(PHONE_CACHE_SIZE);
    await regionOfPhone('+14155550100'); // used again: now the most recent
    await regionOfPhone('+0extra');
    expect(phoneCacheSize()).toBe(PHONE_CACHE_SIZE);
    expect(isPhoneCached('+14155550100')).toBe(true);
    expect(isPhoneCached('+13055550100')).toBe(false);
    expect(isPhoneCached('+00')).toBe(true);
    await regionOfPhone('+0extra2');
    expect(isPhoneCached('+00')).toBe(false);
    clearPhoneCache();
    expect(phoneCacheSize()).toBe(0);
  });
});

describe('regionOfPhone: the state or province of the area code', () => {
  it.each([
    ['+14155550100', 'US-CA'],
    ['+13055550100', 'US-FL'],
    ['+12065550100', 'US-WA'],
    ['+12125550100', 'US-NY'],
    ['+12025550100', 'US-DC'],
    ['+14055550100', 'US-OK'],
    ['+14165550100', 'CA-ON'],
    ['+15145550100', 'CA-QC'],
    ['+16045550100', 'CA-BC'],
    ['+16715550100', 'US-GU'],
    ['+17875550100', 'US-PR'],
    ['+13405550100', 'US-VI'],
    ['+16845550100', 'US-AS'],
    ['+16705550100', 'US-MP'],
    ['+12845550100', null], // British Virgin Islands
    ['+1415555010', null], // a digit short
    ['+18005550100', null],
    ['+19025550100', null], // Nova Scotia / Prince Edward Island: ambiguous
    ['+447911123456', null],
    ['+11234567890', null],
    ['nonsense', null],
  ])('%s -> %s', async (phone, region) => {
    expect(await regionOfPhone(phone)).toBe(region);
  });

  it('is null without a phone', async () => {
    expect(await regionOfPhone(null)).toBeNull();
  });

  it('reads "City, XX" and region names, only for the right country', () => {
    expect(regionFromGeocode('US', 'San Francisco, CA')).toBe('US-CA');
    expect(regionFromGeocode('US', 'Florida')).toBe('US-FL');
    expect(regionFromGeocode('US', 'Washington State')).toBe('US-WA');
    expect(regionFromGeocode('US', 'Washington D.C.')).toBe('US-DC');
    expect(regionFromGeocode('CA', 'Ontario')).toBe('CA-ON');
    expect(regionFromGeocode('CA', 'Toronto, ON')).toBe('CA-ON');
    expect(regionFromGeocode('CA', 'British Colombia')).toBe('CA-BC');
    expect(regionFromGeocode('US', 'Toronto, ON')).toBeNull();
    expect(regionFromGeocode('US', 'Ontario')).toBeNull();
    expect(regionFromGeocode('CA', 'California')).toBeNull();
    expect(regionFromGeocode('CA', 'Nova Scotia/Prince Edward Island')).toBeNull();
    expect(regionFromGeocode('US', 'Cayman Islands')).toBeNull();
    expect(regionFromGeocode('US', null)).toBeNull();
    expect(regionFromGeocode('US', '')).toBeNull();
  });

  it('knows every state, DC and province by the names the data uses', () => {
    const us: Record<string, string> = {
      Alabama: 'AL',
      Alaska: 'AK',
      Arizona: 'AZ',
      Arkansas: 'AR',
      California: 'CA',
      Colorado: 'CO',
      Connecticut: 'CT',
      Delaware: 'DE',
      Florida: 'FL',
      Georgia: 'GA',
      Hawaii: 'HI',
      Idaho: 'ID',
      Illinois: 'IL',
      Indiana: 'IN',
      Iowa: 'IA',
      Kansas: 'KS',
      Kentucky: 'KY',
      Louisiana: 'LA',
      Maine: 'ME',
      Maryland: 'MD',
      Massachusetts: 'MA',
      Michigan: 'MI',
      Minnesota: 'MN',
      Mississippi: 'MS',
      Missouri: 'MO',
      Montana: 'MT',
      Nebraska: 'NE',
      Nevada: 'NV',
      'New Hampshire': 'NH',
      'New Jersey': 'NJ',
      'New Mexico': 'NM',
      'New York': 'NY',
      'North Carolina': 'NC',
      'North Dakota': 'ND',
      Ohio: 'OH',
      Oklahoma: 'OK',
      Oregon: 'OR',
      Pennsylvania: 'PA',
      'Rhode Island': 'RI',
      'South Carolina': 'SC',
      'South Dakota': 'SD',
      Tennessee: 'TN',
      Texas: 'TX',
      Utah: 'UT',
      Vermont: 'VT',
      Virginia: 'VA',
      'Washington State': 'WA',
      'West Virginia': 'WV',
      Wisconsin: 'WI',
      Wyoming: 'WY',
      'Washington D.C.': 'DC',
    };
    const ca: Record<string, string> = {
      Alberta: 'AB',
      'British Columbia': 'BC',
      'British Colombia': 'BC',
      Manitoba: 'MB',
      'New Brunswick': 'NB',
      'Newfoundland and Labrador': 'NL',
      'Nova Scotia': 'NS',
      Ontario: 'ON',
      'Prince Edward Island': 'PE',
      Quebec: 'QC',
      Saskatchewan: 'SK',
      'Northwest Territories': 'NT',
      Nunavut: 'NU',
      Yukon: 'YT',
    };
    for (const [name, code] of Object.entries(us)) {
      expect(regionFromGeocode('US', name)).toBe(`US-${code}`);
      expect(regionFromGeocode('US', `Somewhere, ${code}`)).toBe(`US-${code}`);
      expect(regionFromGeocode('CA', `Somewhere, ${code}`)).toBeNull();
    }
    for (const [name, code] of Object.entries(ca)) {
      expect(regionFromGeocode('CA', name)).toBe(`CA-${code}`);
      expect(regionFromGeocode('CA', `Somewhere, ${code}`)).toBe(`CA-${code}`);
      expect(regionFromGeocode('US', `Somewhere, ${code}`)).toBeNull();
    }
  });
});

describe('the "too many zones" rule', () => {
  it('is three hours of UTC offset', () => {
    expect(MAX_PHONE_ZONE_SPREAD_MINUTES).toBe(180);
  });

  it('measures the widest offset gap over January and July', () => {
    expect(zoneSpreadMinutes([NY])).toBe(0);
    expect(zoneSpreadMinutes([NY, CHI])).toBe(60);
    expect(zoneSpreadMinutes([NY, LA])).toBe(180);
    expect(zoneSpreadMinutes(['America/Anchorage', NY])).toBe(240);
    // Phoenix has no DST: 2 h from Chicago in January, 2 h in July; London-Sydney is 11 h in January, 9 h in July.
    expect(zoneSpreadMinutes(['America/Phoenix', CHI])).toBe(120);
    expect(zoneSpreadMinutes([LONDON, 'Australia/Sydney'])).toBe(660);
    expect(zoneSpreadMinutes(['Asia/Kolkata', 'UTC'])).toBe(330);
  });

  it('keeps lists within three hours, drops wider ones and unknown zones', () => {
    expect(informativeZones([NY, LA])).toEqual([NY, LA]);
    expect(informativeZones(['America/Anchorage', NY])).toBeNull();
    expect(informativeZones(['Not/A_Zone', LONDON])).toEqual([LONDON]);
    expect(informativeZones(['Not/A_Zone'])).toBeNull();
    expect(informativeZones([])).toBeNull();
    expect(informativeZones(null)).toBeNull();
  });
});

// ---------------------------------------------------------------------------

describe('regional windows table', () => {
  it('has the TCPA federal window', () => {
    expect(FEDERAL_US_WINDOW).toEqual({ start: '08:00', end: '21:00' });
  });

  const expected: Record<string, Omit<RegionalWindow, 'region' | 'source' | 'extraHolidays'> & { extra?: string[] }> = {
    'US-AL': {
      start: '08:00',
      end: '20:00',
      closedWeekdays: [0],
      closedOnHolidays: true,
      extra: ['Mardi Gras', 'Confederate Memorial Day', "Jefferson Davis' Birthday"],
    },
    'US-CT': { start: '09:00', end: '20:00' },
    'US-FL': { start: '08:00', end: '20:00' },
    'US-KY': { start: '10:00', end: '21:00' },
    'US-LA': {
      start: '08:00',
      end: '20:00',
      closedWeekdays: [0],
      closedOnHolidays: true,
      extra: ['Mardi Gras', 'Good Friday'],
    },
    'US-MA': { start: '08:00', end: '20:00' },
    'US-MD': { start: '08:00', end: '20:00' },
    'US-MI': { start: '09:00', end: '21:00' },
    'US-MN': { start: '09:00', end: '21:00' },
    'US-MS': { start: '08:00', end: '20:00', closedWeekdays: [0] },
    'US-NM': { start: '09:00', end: '21:00' },
    'US-NV': { start: '09:00', end: '20:00' },
    'US-OK': { start: '08:00', end: '20:00' },
    'US-PA': {
      start: '08:00',
      end: '21:00',
      closedOnHolidays: true,
      extra: ['Good Friday', 'Flag Day', 'Election Day'],
    },
    'US-RI': {
      start: '09:00',
      end: '18:00',
      closedWeekdays: [0],
      dayWindows: { 6: { start: '10:00', end: '17:00' } },
      closedOnHolidays: true,
      extra: ['Rhode Island Independence Day', 'Victory Day'],
    },
    'US-TX': { start: '09:00', end: '21:00', dayWindows: { 0: { start: '12:00', end: '21:00' } } },
    'US-UT': { start: '08:00', end: '21:00', closedWeekdays: [0], closedOnHolidays: true, extra: ['Pioneer Day'] },
    'US-WA': { start: '08:00', end: '20:00' },
    'US-WY': { start: '08:00', end: '20:00' },
  };

  it('has exactly these rows, each with a source', () => {
    expect(REGIONAL_WINDOWS.map((r) => r.region)).toEqual(Object.keys(expected));
    for (const row of REGIONAL_WINDOWS) {
      const want = expected[row.region]!;
      expect({ region: row.region, start: row.start, end: row.end }).toEqual({
        region: row.region,
        start: want.start,
        end: want.end,
      });
      expect(row.closedWeekdays ?? []).toEqual(want.closedWeekdays ?? []);
      expect(row.dayWindows ?? {}).toEqual(want.dayWindows ?? {});
      expect(row.closedOnHolidays ?? false).toBe(want.closedOnHolidays ?? false);
      expect((row.extraHolidays ?? []).map((h) => h.name)).toEqual(want.extra ?? []);
      expect(row.source.length).toBeGreaterThan(10);
    }
  });

  it('finds a row by region', () => {
    expect(regionalWindowFor('US-FL')?.end).toBe('20:00');
    expect(regionalWindowFor('US-CA')).toBeUndefined();
    expect(regionalWindowFor(null)).toBeUndefined();
  });

  it('lists the eleven federal holidays', () => {
    expect(FEDERAL_HOLIDAYS.map((h) => h.name)).toEqual([
      "New Year's Day",
      'Birthday of Martin Luther King, Jr.',
      "Washington's Birthday",
      'Memorial Day',
      'Juneteenth National Independence Day',
      'Independence Day',
      'Labor Day',
      'Columbus Day',
      'Veterans Day',
      'Thanksgiving Day',
      'Christmas Day',
    ]);
  });

  it('computes Easter', () => {
    expect(easterSunday(2008)).toEqual([3, 23]);
    expect(easterSunday(2019)).toEqual([4, 21]);
    expect(easterSunday(2024)).toEqual([3, 31]);
    expect(easterSunday(2025)).toEqual([4, 20]);
    expect(easterSunday(2026)).toEqual([4, 5]);
    expect(easterSunday(2027)).toEqual([3, 28]);
    expect(easterSunday(2038)).toEqual([4, 25]);
    expect(easterSunday(2285)).toEqual([3, 22]);
  });

  it('computes each kind of holiday rule', () => {
    const byName = (name: string) =>
      [...FEDERAL_HOLIDAYS, ...REGIONAL_WINDOWS.flatMap((r) => r.extraHolidays ?? [])].find((h) => h.name === name)!;
    expect(holidayDates(byName('Birthday of Martin Luther King, Jr.'), 2026)).toEqual(['2026-01-19']);
    expect(holidayDates(byName("Washington's Birthday"), 2026)).toEqual(['2026-02-16']);
    expect(holidayDates(byName('Memorial Day'), 2026)).toEqual(['2026-05-25']);
    expect(holidayDates(byName('Memorial Day'), 2027)).toEqual(['2027-05-31']); // May 31 is itself a Monday
    expect(holidayDates(byName('Labor Day'), 2026)).toEqual(['2026-09-07']);
    expect(holidayDates(byName('Labor Day'), 2025)).toEqual(['2025-09-01']); // September 1 is itself a Monday
    expect(holidayDates(byName('Columbus Day'), 2026)).toEqual(['2026-10-12']);
    expect(holidayDates(byName('Thanksgiving Day'), 2026)).toEqual(['2026-11-26']);
    expect(holidayDates(byName('Election Day'), 2026)).toEqual(['2026-11-03']);
    expect(holidayDates(byName('Election Day'), 2027)).toEqual(['2027-11-02']);
    expect(holidayDates(byName('Victory Day'), 2026)).toEqual(['2026-08-10']);
    expect(holidayDates(byName('Confederate Memorial Day'), 2026)).toEqual(['2026-04-27']);
    expect(holidayDates(byName("Jefferson Davis' Birthday"), 2026)).toEqual(['2026-06-01']);
    expect(holidayDates(byName('Mardi Gras'), 2026)).toEqual(['2026-02-17']);
    expect(holidayDates(byName('Good Friday'), 2026)).toEqual(['2026-04-03']);
    // Fixed dates: a Saturday also blocks the Friday before, a Sunday the Monday after.
    expect(holidayDates(byName('Independence Day'), 2025)).toEqual(['2025-07-04']);
    expect(holidayDates(byName('Independence Day'), 2026)).toEqual(['2026-07-04', '2026-07-03']);
    expect(holidayDates(byName('Independence Day'), 2027)).toEqual(['2027-07-04', '2027-07-05']);
    expect(holidayDates({ name: 'second to last Friday', month: 1, weekday: 5, nth: -2 }, 2026)).toEqual([
      '2026-01-23',
    ]);
  });

  it('blocks a row’s holidays only when it closes on holidays', () => {
    const ut = regionalWindowFor('US-UT')!;
    const al = regionalWindowFor('US-AL')!;
    const fl = regionalWindowFor('US-FL')!;
    expect(isRegionalHoliday(ut, '2026-07-24')).toBe(true); // Pioneer Day
    expect(isRegionalHoliday(al, '2026-07-24')).toBe(false);
    expect(isRegionalHoliday(ut, '2026-12-25')).toBe(true);
    expect(isRegionalHoliday(fl, '2026-12-25')).toBe(false);
    expect(isRegionalHoliday(al, '2026-04-27')).toBe(true);
    expect(isRegionalHoliday(al, '2026-04-20')).toBe(false);
    // New Year's Day 2028 is a Saturday: observed Friday 2027-12-31.
    expect(isRegionalHoliday(ut, '2027-12-31')).toBe(true);
    expect(isRegionalHoliday(ut, '2026-12-31')).toBe(false);
    expect(regionalHolidays(ut, 2027).has('2028-01-01')).toBe(false);
    expect(regionalHolidays(ut, 2028).has('2028-01-01')).toBe(true);
    expect(regionalHolidays(fl, 2026).size).toBe(0);
    // 11 federal + Pioneer Day, plus the observed days of fixed dates on weekends in 2026 (July 4 and Pioneer Day... Friday July 24 is not).
    expect([...regionalHolidays(ut, 2026)].sort()).toEqual([
      '2026-01-01',
      '2026-01-19',
      '2026-02-16',
      '2026-05-25',
      '2026-06-19',
      '2026-07-03',
      '2026-07-04',
      '2026-07-24',
      '2026-09-07',
      '2026-10-12',
      '2026-11-11',
      '2026-11-26',
      '2026-12-25',
    ]);
  });
});

// ---------------------------------------------------------------------------

describe('clock helpers', () => {
  it('reads the local wall clock', () => {
    expect(localTime(NY, Date.parse('2026-07-01T12:30:45Z'))).toEqual({
      wall: Date.parse('2026-07-01T08:30:00Z'),
      date: '2026-07-01',
      weekday: 3,
      minute: 8 * 60 + 30,
    });
    expect(localTime(NY, Date.parse('2026-07-05T03:59:00Z'))).toMatchObject({
      date: '2026-07-04',
      weekday: 6,
      minute: 23 * 60 + 59,
    });
    expect(localTime('Asia/Tokyo', Date.parse('2026-07-04T15:00:00Z'))).toMatchObject({
      date: '2026-07-05',
      weekday: 0,
      minute: 0,
    });
  });

  it('has [start, end) windows, over midnight, and start == end as no limit', () => {
    expect(minuteInside(480, { start: 480, end: 1260 })).toBe(true);
    expect(minuteInside(479, { start: 480, end: 1260 })).toBe(false);
    expect(minuteInside(1259, { start: 480, end: 1260 })).toBe(true);
    expect(minuteInside(1260, { start: 480, end: 1260 })).toBe(false);
    expect(minuteInside(1320, { start: 1320, end: 120 })).toBe(true);
    expect(minuteInside(119, { start: 1320, end: 120 })).toBe(true);
    expect(minuteInside(120, { start: 1320, end: 120 })).toBe(false);
    expect(minuteInside(1319, { start: 1320, end: 120 })).toBe(false);
    expect(minuteInside(0, { start: 300, end: 300 })).toBe(true);
  });

  it('finds no instant in a spring-forward gap and two in a fall-back overlap', () => {
    expect(instantsAtLocal(NY, Date.parse('2026-03-08T02:30:00Z'))).toEqual([]);
    expect(instantsAtLocal(NY, Date.parse('2026-03-08T03:00:00Z'))).toEqual([Date.parse('2026-03-08T07:00:00Z')]);
    expect(instantsAtLocal(NY, Date.parse('2026-03-08T01:59:00Z'))).toEqual([Date.parse('2026-03-08T06:59:00Z')]);
    expect(instantsAtLocal(NY, Date.parse('2026-11-01T01:30:00Z'))).toEqual([
      Date.parse('2026-11-01T05:30:00Z'),
      Date.parse('2026-11-01T06:30:00Z'),
    ]);
    expect(instantsAtLocal(LONDON, Date.parse('2026-03-29T01:30:00Z'))).toEqual([]);
    expect(instantsAtLocal(LONDON, Date.parse('2026-10-25T01:15:00Z'))).toEqual([
      Date.parse('2026-10-25T00:15:00Z'),
      Date.parse('2026-10-25T01:15:00Z'),
    ]);
    expect(instantsAtLocal('UTC', Date.parse('2026-10-25T01:15:00Z'))).toEqual([Date.parse('2026-10-25T01:15:00Z')]);
  });

  it('finds offset transitions to the minute', () => {
    expect(offsetTransitions(NY, Date.parse('2026-03-01T00:00:00Z'), Date.parse('2026-03-15T00:00:00Z'))).toEqual([
      Date.parse('2026-03-08T07:00:00Z'),
    ]);
    expect(offsetTransitions(NY, Date.parse('2026-10-25T00:00:00Z'), Date.parse('2026-11-08T00:00:00Z'))).toEqual([
      Date.parse('2026-11-01T06:00:00Z'),
    ]);
    expect(offsetTransitions(LONDON, Date.parse('2026-03-29T00:59:00Z'), Date.parse('2026-03-29T01:00:00Z'))).toEqual([
      Date.parse('2026-03-29T01:00:00Z'),
    ]);
    expect(offsetTransitions(LONDON, Date.parse('2026-03-29T01:00:00Z'), Date.parse('2026-03-30T01:00:00Z'))).toEqual(
      [],
    );
    expect(
      offsetTransitions('Asia/Tokyo', Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-12-31T00:00:00Z')),
    ).toEqual([]);
    expect(offsetTransitions(NY, Date.parse('2026-01-01T00:00:00Z'), Date.parse('2026-12-31T00:00:00Z'))).toEqual([
      Date.parse('2026-03-08T07:00:00Z'),
      Date.parse('2026-11-01T06:00:00Z'),
    ]);
    expect(offsetTransitions(NY, Date.parse('2026-03-08T07:00:00Z'), Date.parse('2026-03-09T00:00:00Z'))).toEqual([]);
    expect(offsetTransitions(NY, Date.parse('2026-03-08T06:00:00Z'), Date.parse('2026-03-08T06:59:59Z'))).toEqual([]);
    expect(offsetTransitions(NY, Date.parse('2026-03-08T06:59:30Z'), Date.parse('2026-03-08T07:00:00Z'))).toEqual([
      Date.parse('2026-03-08T07:00:00Z'),
    ]);
    expect(offsetTransitions(NY, Date.parse('2026-03-08T07:00:30Z'), Date.parse('2026-03-08T08:00:00Z'))).toEqual([]);
    expect(
      offsetTransitions('Australia/Lord_Howe', Date.parse('2026-04-01T00:00:00Z'), Date.parse('2026-04-10T00:00:00Z')),
    ).toEqual([Date.parse('2026-04-04T15:00:00Z')]);
  });

  it('finds the next time the clock reads a time, or jumps past it', () => {
    expect(nextLocalClock(Date.parse('2026-07-01T11:00:00Z'), NY, 480)).toBe(Date.parse('2026-07-01T12:00:00Z'));
    expect(nextLocalClock(Date.parse('2026-07-01T12:00:00Z'), NY, 480)).toBe(Date.parse('2026-07-02T12:00:00Z'));
    expect(nextLocalClock(Date.parse('2026-03-08T05:00:00Z'), NY, 150)).toBe(Date.parse('2026-03-08T07:00:00Z'));
    expect(nextLocalClock(Date.parse('2026-11-01T05:45:00Z'), NY, 90)).toBe(Date.parse('2026-11-01T06:30:00Z'));
  });
});

// ---------------------------------------------------------------------------

describe('contactWindow', () => {
  it('is inside 08:00-21:00 local, end exclusive, and names the next opening', () => {
    expect(contactWindow(at('2026-07-01T12:00:00Z'), [NY], policy(), null)).toEqual({ inside: true });
    expect(contactWindow(at('2026-07-02T00:59:59Z'), [NY], policy(), null)).toEqual({ inside: true });
    expect(closed(contactWindow(at('2026-07-01T11:59:30Z'), [NY], policy(), null))).toEqual({
      opensAt: '2026-07-01T12:00:00.000Z',
      reason: 'outside contact hours 08:00-21:00 America/New_York',
    });
    expect(closed(contactWindow(at('2026-07-02T01:00:00Z'), [NY], policy(), null))).toEqual({
      opensAt: '2026-07-02T12:00:00.000Z',
      reason: 'outside contact hours 08:00-21:00 America/New_York',
    });
  });

  it('needs every zone inside: a number spanning two zones', () => {
    const idaho = ['America/Boise', LA];
    // 08:30 in Boise, 07:30 in Los Angeles.
    expect(closed(contactWindow(at('2026-07-01T14:30:00Z'), idaho, policy(), null))).toEqual({
      opensAt: '2026-07-01T15:00:00.000Z',
      reason: 'outside contact hours 08:00-21:00 America/Los_Angeles',
    });
    expect(contactWindow(at('2026-07-01T15:00:00Z'), idaho, policy(), null)).toEqual({ inside: true });
    // 20:59 in Boise, 19:59 in Los Angeles: inside; a minute later Boise closes.
    expect(contactWindow(at('2026-07-02T02:59:00Z'), idaho, policy(), null)).toEqual({ inside: true });
    expect(closed(contactWindow(at('2026-07-02T03:00:00Z'), idaho, policy(), null))).toEqual({
      opensAt: '2026-07-02T15:00:00.000Z',
      reason: 'outside contact hours 08:00-21:00 America/Boise',
    });
  });

  it('finds the common window of zones far apart', () => {
    // New York 08-21 EDT is 12:00Z-01:00Z; Tokyo 08-21 JST is 23:00Z-12:00Z.
    expect(closed(contactWindow(at('2026-07-01T13:00:00Z'), [NY, 'Asia/Tokyo'], policy(), null))).toEqual({
      opensAt: '2026-07-01T23:00:00.000Z',
      reason: 'outside contact hours 08:00-21:00 Asia/Tokyo',
    });
    expect(contactWindow(at('2026-07-02T00:59:00Z'), [NY, 'Asia/Tokyo'], policy(), null)).toEqual({ inside: true });
  });

  it('says when no common window exists within the search', () => {
    const d = closed(
      contactWindow(at('2026-07-01T13:00:00Z'), [NY, 'Asia/Tokyo'], policy({ start: '09:00', end: '17:00' }), null),
    );
    expect(SEARCH_DAYS).toBe(8);
    expect(d.opensAt).toBe('2026-07-09T13:00:00.000Z');
    expect(d.reason).toBe(
      'no common contact window within 8 days in America/New_York, Asia/Tokyo (outside contact hours 09:00-17:00 Asia/Tokyo)',
    );
    expect(closed(contactWindow(at('2026-07-01T13:00:00Z'), [NY], policy({ weekdays: [] }), null)).reason).toMatch(
      /^no common contact window within 8 days/,
    );
  });

  it('searches exactly eight days ahead', () => {
    // Monday 2026-07-06 22:00 EDT; only Mondays: the next one, 2026-07-13 08:00 EDT, is 7 days 10 hours on.
    const mondays = policy({ weekdays: [1] });
    expect(closed(contactWindow(at('2026-07-07T02:00:00Z'), [NY], mondays, null))).toEqual({
      opensAt: '2026-07-13T12:00:00.000Z',
      reason: 'outside contact hours 08:00-21:00 America/New_York',
    });
    expect(closed(contactWindow(at('2026-07-07T04:00:00Z'), [NY], mondays, null))).toEqual({
      opensAt: '2026-07-13T12:00:00.000Z',
      reason: 'not a contact day (Tuesday) in America/New_York',
    });
    // Sunday 2026-07-05 23:00 EDT, Monday the 6th a holiday: 2026-07-13 08:00 EDT is 7 days 9 hours on.
    expect(
      closed(contactWindow(at('2026-07-06T03:00:00Z'), [NY], policy({ weekdays: [1], holidays: ['2026-07-06'] }), null))
        .opensAt,
    ).toBe('2026-07-13T12:00:00.000Z');
    // Sunday 08:00 EDT: the opening is exactly 8 days on, still found.
    expect(
      closed(contactWindow(at('2026-07-05T12:00:00Z'), [NY], policy({ weekdays: [1], holidays: ['2026-07-06'] }), null))
        .opensAt,
    ).toBe('2026-07-13T12:00:00.000Z');
    // A minute earlier it is beyond the search.
    const d = closed(
      contactWindow(at('2026-07-05T11:59:00Z'), [NY], policy({ weekdays: [1], holidays: ['2026-07-06'] }), null),
    );
    expect(d.opensAt).toBe('2026-07-13T11:59:00.000Z');
    expect(d.reason).toBe(
      'no common contact window within 8 days in America/New_York (not a contact day (Sunday) in America/New_York)',
    );
  });

  it('refuses days outside the allowed weekdays, by local date', () => {
    expect(closed(contactWindow(at('2026-07-04T15:00:00Z'), [NY], policy({ weekdays: WEEKDAYS }), null))).toEqual({
      opensAt: '2026-07-06T12:00:00.000Z',
      reason: 'not a contact day (Saturday) in America/New_York',
    });
    // Friday 23:30 in New York is already Saturday in UTC: still Friday where the lead is.
    expect(contactWindow(at('2026-07-04T00:30:00Z'), [NY], policy({ weekdays: WEEKDAYS }), null)).toEqual({
      inside: true,
    });
    expect(contactWindow(at('2026-07-06T12:00:00Z'), [NY], policy({ weekdays: WEEKDAYS }), null)).toEqual({
      inside: true,
    });
    expect(
      closed(contactWindow(at('2026-07-05T15:00:00Z'), [NY], policy({ weekdays: [1, 2, 3, 4, 5, 6] }), null)).reason,
    ).toBe('not a contact day (Sunday) in America/New_York');
  });

  it('opens at local midnight when only the day is wrong, for a prompt reply; at the legal floor’s 08:00 otherwise', () => {
    // No hours limit, weekdays only: Saturday in New York opens at Monday 00:00 EDT for a reply the floor does not hold.
    expect(
      closed(
        contactWindow(
          at('2026-07-04T15:00:00Z'),
          [NY],
          policy({ start: '00:00', end: '00:00', weekdays: WEEKDAYS, answersLeadNow: true }),
          null,
        ),
      ),
    ).toEqual({
      opensAt: '2026-07-06T04:00:00.000Z',
      reason: 'not a contact day (Saturday) in America/New_York',
    });
    expect(
      closed(
        contactWindow(
          at('2026-12-25T15:00:00Z'),
          [NY],
          policy({ start: '00:00', end: '00:00', holidays: ['2026-12-25'], answersLeadNow: true }),
          null,
        ),
      ).opensAt,
    ).toBe('2026-12-26T05:00:00.000Z');
    // Any other contact: Monday 08:00 EDT, the 26th at 08:00 EST.
    expect(
      closed(
        contactWindow(
          at('2026-07-04T15:00:00Z'),
          [NY],
          policy({ start: '00:00', end: '00:00', weekdays: WEEKDAYS }),
          null,
        ),
      ).opensAt,
    ).toBe('2026-07-06T12:00:00.000Z');
    expect(
      closed(
        contactWindow(
          at('2026-12-25T15:00:00Z'),
          [NY],
          policy({ start: '00:00', end: '00:00', holidays: ['2026-12-25'] }),
          null,
        ),
      ).opensAt,
    ).toBe('2026-12-26T13:00:00.000Z');
  });

  it('refuses the organization’s holidays, by local date', () => {
    expect(closed(contactWindow(at('2026-12-25T15:00:00Z'), [NY], policy({ holidays: ['2026-12-25'] }), null))).toEqual(
      {
        opensAt: '2026-12-26T13:00:00.000Z',
        reason: 'holiday 2026-12-25',
      },
    );
    // 20:00 on 2026-12-24 in New York is already the 25th in UTC.
    expect(contactWindow(at('2026-12-25T01:00:00Z'), [NY], policy({ holidays: ['2026-12-25'] }), null)).toEqual({
      inside: true,
    });
  });

  it('runs a window over midnight, with weekdays by the local date of each minute', () => {
    // A prompt reply (the floor lifted): the organization's night hours alone decide.
    const night = policy({ start: '22:00', end: '02:00', answersLeadNow: true });
    expect(contactWindow(at('2026-07-01T23:00:00Z'), ['UTC'], night, null)).toEqual({ inside: true });
    expect(contactWindow(at('2026-07-01T01:59:00Z'), ['UTC'], night, null)).toEqual({ inside: true });
    expect(closed(contactWindow(at('2026-07-01T02:00:00Z'), ['UTC'], night, null)).opensAt).toBe(
      '2026-07-01T22:00:00.000Z',
    );
    // Only Fridays: Friday 00:00-02:00 and 22:00-24:00; Saturday's 00:00-02:00 is not Friday any more.
    const fridays = policy({ start: '22:00', end: '02:00', weekdays: [5], answersLeadNow: true });
    expect(contactWindow(at('2026-07-03T23:59:00Z'), ['UTC'], fridays, null)).toEqual({ inside: true });
    expect(closed(contactWindow(at('2026-07-04T00:00:00Z'), ['UTC'], fridays, null))).toEqual({
      opensAt: '2026-07-10T00:00:00.000Z',
      reason: 'not a contact day (Saturday) in UTC',
    });
    expect(closed(contactWindow(at('2026-07-10T02:00:00Z'), ['UTC'], fridays, null))).toEqual({
      opensAt: '2026-07-10T22:00:00.000Z',
      reason: 'outside contact hours 22:00-02:00 UTC',
    });
    // Thursday allowed, Friday 00:00-02:00 allowed too.
    expect(closed(contactWindow(at('2026-07-02T12:00:00Z'), ['UTC'], fridays, null)).opensAt).toBe(
      '2026-07-03T00:00:00.000Z',
    );
  });

  describe('start == end', () => {
    const allDay = policy({ start: '00:00', end: '00:00' });
    it('is no limit from the organization, but the legal floor holds even without override or regional rules', () => {
      expect(closed(contactWindow(at('2026-07-01T07:00:00Z'), [NY], allDay, 'US-FL'))).toEqual({
        // 03:00
        opensAt: '2026-07-01T12:00:00.000Z',
        reason: 'outside the legal window 08:00-21:00 America/New_York',
      });
      expect(contactWindow(at('2026-07-01T12:00:00Z'), [NY], allDay, 'US-FL')).toEqual({ inside: true }); // 08:00
      // Only a prompt reply to the lead goes at 03:00.
      expect(contactWindow(at('2026-07-01T07:00:00Z'), [NY], { ...allDay, answersLeadNow: true }, 'US-FL')).toEqual({
        inside: true,
      });
    });
    it('gets the legal floor with regional rules or the override too', () => {
      expect(closed(contactWindow(at('2026-07-01T07:00:00Z'), [NY], { ...allDay, regionalRules: true }, null))).toEqual(
        {
          opensAt: '2026-07-01T12:00:00.000Z',
          reason: 'outside the legal window 08:00-21:00 America/New_York',
        },
      );
      expect(
        closed(contactWindow(at('2026-07-01T07:00:00Z'), [NY], { ...allDay, overrideOrganizationHours: true }, null)),
      ).toEqual({
        opensAt: '2026-07-01T12:00:00.000Z',
        reason: 'outside the legal window 08:00-21:00 America/New_York',
      });
    });
    it('never lets organization hours wider than the legal window through, but for a prompt reply', () => {
      const wide = policy({ start: '07:00', end: '22:00' });
      expect(closed(contactWindow(at('2026-07-01T11:30:00Z'), [NY], wide, null)).reason).toBe(
        'outside the legal window 08:00-21:00 America/New_York',
      ); // 07:30
      expect(closed(contactWindow(at('2026-07-02T01:30:00Z'), [NY], wide, null)).reason).toBe(
        'outside the legal window 08:00-21:00 America/New_York',
      ); // 21:30
      expect(
        closed(contactWindow(at('2026-07-02T01:30:00Z'), [NY], { ...wide, regionalRules: true }, null)).reason,
      ).toBe('outside the legal window 08:00-21:00 America/New_York');
      expect(contactWindow(at('2026-07-02T01:30:00Z'), [NY], { ...wide, answersLeadNow: true }, null)).toEqual({
        inside: true,
      });
      expect(
        closed(contactWindow(at('2026-07-02T02:30:00Z'), [NY], { ...wide, answersLeadNow: true }, null)).reason,
      ).toBe('outside contact hours 07:00-22:00 America/New_York');
    });
  });

  describe('regional rules', () => {
    const regional = policy({ regionalRules: true });

    it('ends Florida at 20:00', () => {
      expect(contactWindow(at('2026-07-01T23:59:00Z'), [NY], regional, 'US-FL')).toEqual({ inside: true });
      expect(closed(contactWindow(at('2026-07-02T00:00:00Z'), [NY], regional, 'US-FL'))).toEqual({
        opensAt: '2026-07-02T12:00:00.000Z',
        reason: 'outside the regional window 08:00-20:00 (US-FL)',
      });
      // Off: the organization's 21:00 holds.
      expect(contactWindow(at('2026-07-02T00:00:00Z'), [NY], policy(), 'US-FL')).toEqual({ inside: true });
      // A region without a row: only the federal floor.
      expect(contactWindow(at('2026-07-02T00:00:00Z'), [NY], regional, 'US-CA')).toEqual({ inside: true });
      expect(contactWindow(at('2026-07-02T00:00:00Z'), [NY], regional, null)).toEqual({ inside: true });
    });

    it('gives Texas a later Sunday and a 09:00 start', () => {
      expect(closed(contactWindow(at('2026-07-05T15:00:00Z'), [CHI], regional, 'US-TX'))).toEqual({
        opensAt: '2026-07-05T17:00:00.000Z',
        reason: 'outside the regional window 12:00-21:00 (US-TX)',
      });
      expect(contactWindow(at('2026-07-05T17:00:00Z'), [CHI], regional, 'US-TX')).toEqual({ inside: true });
      expect(closed(contactWindow(at('2026-07-06T13:30:00Z'), [CHI], regional, 'US-TX'))).toEqual({
        opensAt: '2026-07-06T14:00:00.000Z',
        reason: 'outside the regional window 09:00-21:00 (US-TX)',
      });
      expect(contactWindow(at('2026-07-07T01:59:00Z'), [CHI], regional, 'US-TX')).toEqual({ inside: true });
    });

    it('closes Alabama on Sundays and holidays', () => {
      expect(closed(contactWindow(at('2026-07-05T15:00:00Z'), [CHI], regional, 'US-AL'))).toEqual({
        opensAt: '2026-07-06T13:00:00.000Z',
        reason: 'no solicitation on Sunday (US-AL)',
      });
      expect(closed(contactWindow(at('2026-12-25T15:00:00Z'), [CHI], regional, 'US-AL'))).toEqual({
        opensAt: '2026-12-26T14:00:00.000Z',
        reason: 'state holiday 2026-12-25 (US-AL)',
      });
      expect(closed(contactWindow(at('2026-07-02T01:00:00Z'), [CHI], regional, 'US-AL')).reason).toBe(
        'outside the regional window 08:00-20:00 (US-AL)',
      );
      expect(contactWindow(at('2026-07-05T15:00:00Z'), [CHI], policy(), 'US-AL')).toEqual({ inside: true });
    });

    it('gives Rhode Island shorter Saturdays and no Sundays', () => {
      expect(closed(contactWindow(at('2026-07-11T13:30:00Z'), [NY], regional, 'US-RI'))).toEqual({
        opensAt: '2026-07-11T14:00:00.000Z',
        reason: 'outside the regional window 10:00-17:00 (US-RI)',
      });
      expect(closed(contactWindow(at('2026-07-11T21:00:00Z'), [NY], regional, 'US-RI'))).toEqual({
        opensAt: '2026-07-13T13:00:00.000Z',
        reason: 'outside the regional window 10:00-17:00 (US-RI)',
      });
      expect(contactWindow(at('2026-07-13T21:59:00Z'), [NY], regional, 'US-RI')).toEqual({ inside: true });
      expect(closed(contactWindow(at('2026-07-13T22:00:00Z'), [NY], regional, 'US-RI')).reason).toBe(
        'outside the regional window 09:00-18:00 (US-RI)',
      );
    });

    it('applies the regional row in every zone of the lead', () => {
      // Florida panhandle style: New York and Chicago; 20:00 ends in New York first.
      expect(closed(contactWindow(at('2026-07-02T00:00:00Z'), [CHI, NY], regional, 'US-FL')).reason).toBe(
        'outside the regional window 08:00-20:00 (US-FL)',
      );
      // 08:00 opens in New York first, Chicago an hour later.
      expect(closed(contactWindow(at('2026-07-02T12:00:00Z'), [CHI, NY], regional, 'US-FL')).opensAt).toBe(
        '2026-07-02T13:00:00.000Z',
      );
    });
  });

  describe('overriding organization hours', () => {
    const org = policy({ start: '10:00', end: '17:00', weekdays: WEEKDAYS, holidays: ['2026-07-04'] });
    const override = { ...org, overrideOrganizationHours: true };

    it('lifts hours, weekdays and holidays', () => {
      expect(closed(contactWindow(at('2026-07-04T13:00:00Z'), [NY], org, null)).reason).toBe('holiday 2026-07-04');
      expect(contactWindow(at('2026-07-04T13:00:00Z'), [NY], override, null)).toEqual({ inside: true }); // Saturday holiday, 09:00
      expect(contactWindow(at('2026-07-02T00:30:00Z'), [NY], override, null)).toEqual({ inside: true }); // 20:30
    });

    it('keeps the legal window', () => {
      expect(closed(contactWindow(at('2026-07-04T11:30:00Z'), [NY], override, null))).toEqual({
        opensAt: '2026-07-04T12:00:00.000Z',
        reason: 'outside the legal window 08:00-21:00 America/New_York',
      });
      expect(closed(contactWindow(at('2026-07-02T01:00:00Z'), [NY], override, null)).reason).toBe(
        'outside the legal window 08:00-21:00 America/New_York',
      );
    });

    it('keeps the regional row when regional rules are on', () => {
      expect(
        closed(contactWindow(at('2026-07-02T00:30:00Z'), [NY], { ...override, regionalRules: true }, 'US-FL')),
      ).toEqual({
        opensAt: '2026-07-02T12:00:00.000Z',
        reason: 'outside the regional window 08:00-20:00 (US-FL)',
      });
      expect(
        closed(contactWindow(at('2026-07-05T15:00:00Z'), [CHI], { ...override, regionalRules: true }, 'US-UT')).reason,
      ).toBe('no solicitation on Sunday (US-UT)');
      expect(contactWindow(at('2026-07-05T15:00:00Z'), [CHI], override, 'US-UT')).toEqual({ inside: true });
    });
  });

  describe('daylight saving', () => {
    it('opens at 08:00 EDT on the New York spring-forward day', () => {
      expect(closed(contactWindow(at('2026-03-08T06:30:00Z'), [NY], policy(), null)).opensAt).toBe(
        '2026-03-08T12:00:00.000Z',
      );
      expect(closed(contactWindow(at('2026-03-08T03:00:00Z'), [NY], policy(), null)).opensAt).toBe(
        '2026-03-08T12:00:00.000Z',
      );
      // The day before was still EST: 08:00 = 13:00Z.
      expect(closed(contactWindow(at('2026-03-07T12:30:00Z'), [NY], policy(), null)).opensAt).toBe(
        '2026-03-07T13:00:00.000Z',
      );
    });

    it('opens when the clock jumps into a window whose start is skipped', () => {
      // 02:30 does not exist on 2026-03-08 in New York: 01:59 EST is followed by 03:00 EDT (07:00Z).
      const early = policy({ start: '02:30', end: '05:00', answersLeadNow: true });
      expect(closed(contactWindow(at('2026-03-08T05:00:00Z'), [NY], early, null)).opensAt).toBe(
        '2026-03-08T07:00:00.000Z',
      );
      expect(contactWindow(at('2026-03-08T07:00:00Z'), [NY], early, null)).toEqual({ inside: true });
      expect(closed(contactWindow(at('2026-03-08T06:59:00Z'), [NY], early, null)).reason).toBe(
        'outside contact hours 02:30-05:00 America/New_York',
      );
    });

    it('uses the second 01:30 on the New York fall-back day', () => {
      const narrow = policy({ start: '01:30', end: '01:45', answersLeadNow: true });
      expect(contactWindow(at('2026-11-01T05:30:00Z'), [NY], narrow, null)).toEqual({ inside: true }); // 01:30 EDT
      expect(closed(contactWindow(at('2026-11-01T05:50:00Z'), [NY], narrow, null)).opensAt).toBe(
        '2026-11-01T06:30:00.000Z',
      ); // 01:30 EST
      expect(closed(contactWindow(at('2026-11-01T06:30:00Z'), [NY], policy(), null)).opensAt).toBe(
        '2026-11-01T13:00:00.000Z',
      ); // 08:00 EST
      expect(contactWindow(at('2026-11-02T01:59:00Z'), [NY], policy(), null)).toEqual({ inside: true }); // 20:59 EST
      expect(closed(contactWindow(at('2026-11-02T02:00:00Z'), [NY], policy(), null)).reason).toBe(
        'outside contact hours 08:00-21:00 America/New_York',
      );
    });

    it('handles London spring-forward and fall-back', () => {
      // 2026-03-29: 01:00 GMT becomes 02:00 BST; 01:15 is skipped.
      expect(
        closed(
          contactWindow(
            at('2026-03-29T00:30:00Z'),
            [LONDON],
            policy({ start: '01:15', end: '03:00', answersLeadNow: true }),
            null,
          ),
        ).opensAt,
      ).toBe('2026-03-29T01:00:00.000Z');
      expect(closed(contactWindow(at('2026-03-29T02:00:00Z'), [LONDON], policy(), null)).opensAt).toBe(
        '2026-03-29T07:00:00.000Z',
      ); // 08:00 BST
      // 2026-10-25: 02:00 BST becomes 01:00 GMT at 01:00Z.
      expect(closed(contactWindow(at('2026-10-25T01:30:00Z'), [LONDON], policy(), null)).opensAt).toBe(
        '2026-10-25T08:00:00.000Z',
      ); // 08:00 GMT
      expect(
        closed(
          contactWindow(
            at('2026-10-25T00:45:00Z'),
            [LONDON],
            policy({ start: '01:00', end: '01:30', answersLeadNow: true }),
            null,
          ),
        ).opensAt,
      ).toBe('2026-10-25T01:00:00.000Z');
      expect(
        contactWindow(
          at('2026-10-25T00:15:00Z'),
          [LONDON],
          policy({ start: '01:00', end: '01:30', answersLeadNow: true }),
          null,
        ),
      ).toEqual({ inside: true }); // 01:15 BST
    });

    it('keeps a two-zone intersection right across a transition one zone has and the other not', () => {
      // 2026-03-08: New York springs forward, Phoenix never does. 08:00 EDT = 12:00Z, 08:00 MST = 15:00Z.
      expect(closed(contactWindow(at('2026-03-08T06:00:00Z'), [NY, 'America/Phoenix'], policy(), null)).opensAt).toBe(
        '2026-03-08T15:00:00.000Z',
      );
      // 21:00 EDT = 01:00Z is the end.
      expect(closed(contactWindow(at('2026-03-09T01:00:00Z'), [NY, 'America/Phoenix'], policy(), null)).opensAt).toBe(
        '2026-03-09T15:00:00.000Z',
      );
    });
  });

  it('rejects no zones and malformed clock times', () => {
    expect(() => contactWindow(at('2026-07-01T12:00:00Z'), [], policy(), null)).toThrow(RangeError);
    expect(() => contactWindow(at('2026-07-01T12:00:00Z'), [NY], policy({ start: '8:00' }), null)).toThrow(RangeError);
    expect(() => contactWindow(at('2026-07-01T12:00:00Z'), [NY], policy({ end: '24:00' }), null)).toThrow(RangeError);
    expect(() => contactWindow(at('2026-07-01T12:00:00Z'), [NY], policy({ end: '12:60' }), null)).toThrow(RangeError);
    expect(() => contactWindow(at('2026-07-01T12:00:00Z'), ['Not/A_Zone'], policy(), null)).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------
// Property tests against an independent oracle: a plain reading of the rules
// with its own Intl formatting (weekday by name, hour by number), minute by minute.

const oracleFormats = new Map<string, Intl.DateTimeFormat>();
const WEEKDAY_INDEX: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

function oracleLocal(zone: string, t: number): { date: string; weekday: number; minutes: number } {
  let f = oracleFormats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      weekday: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    });
    oracleFormats.set(zone, f);
  }
  const parts = f.formatToParts(new Date(t));
  const get = (type: string): string => parts.find((p) => p.type === type)!.value;
  const date = `${get('year')}-${get('month').padStart(2, '0')}-${get('day').padStart(2, '0')}`;
  return { date, weekday: WEEKDAY_INDEX[get('weekday')]!, minutes: Number(get('hour')) * 60 + Number(get('minute')) };
}

const hm = (s: string): number => Number(s.slice(0, 2)) * 60 + Number(s.slice(3, 5));
function within(minutes: number, w: { start: string; end: string }): boolean {
  const s = hm(w.start);
  const e = hm(w.end);
  if (s === e) return true;
  if (s < e) return s <= minutes && minutes < e;
  return minutes >= s || minutes < e;
}

function oracleInside(t: number, zones: string[], p: ContactPolicy, region: string | null): boolean {
  const row = p.regionalRules && !p.answersLeadNow ? REGIONAL_WINDOWS.find((r) => r.region === region) : undefined;
  return zones.every((zone) => {
    const local = oracleLocal(zone, t);
    if (!p.overrideOrganizationHours) {
      if (p.holidays.includes(local.date) || !p.weekdays.includes(local.weekday) || !within(local.minutes, p))
        return false;
    }
    // The legal floor holds every contact but a prompt reply to the lead.
    if (!p.answersLeadNow && !within(local.minutes, { start: '08:00', end: '21:00' })) return false;
    if (row) {
      if ((row.closedWeekdays ?? []).includes(local.weekday)) return false;
      if (isRegionalHoliday(row, local.date)) return false; // the holiday calendar itself is tested against known dates above
      if (!within(local.minutes, row.dayWindows?.[local.weekday] ?? row)) return false;
    }
    return true;
  });
}

const ZONES = [
  NY,
  LA,
  CHI,
  'America/Denver',
  'America/Phoenix',
  'America/St_Johns',
  LONDON,
  'Europe/Berlin',
  'Asia/Tokyo',
  'Asia/Kolkata',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Pacific/Auckland',
  'UTC',
];
const REGIONS = [null, 'US-FL', 'US-TX', 'US-AL', 'US-RI', 'US-UT', 'US-PA', 'US-CA'];
// Instants in 2026-2027 near daylight-saving changes (New York, London, Sydney, Lord Howe) and anywhere.
const DST_DAYS = [
  '2026-03-08',
  '2026-03-29',
  '2026-04-05',
  '2026-10-04',
  '2026-10-25',
  '2026-11-01',
  '2027-03-14',
  '2027-03-28',
  '2027-04-04',
  '2027-10-31',
  '2027-11-07',
];
const instant = fc.oneof(
  fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-12-31T00:00:00Z') }),
  fc
    .tuple(
      fc.constantFrom(...DST_DAYS),
      fc.integer({ min: -36 * 60, max: 36 * 60 }),
      fc.integer({ min: 0, max: 59_999 }),
    )
    .map(([day, minutes, ms]) => Date.parse(`${day}T00:00:00Z`) + minutes * 60_000 + ms),
);
const clock = fc
  .oneof(
    fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })),
    fc.tuple(fc.integer({ min: 0, max: 23 }), fc.constantFrom(0, 30)),
  )
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const scenario = fc
  .record({
    now: instant,
    zones: fc.uniqueArray(fc.constantFrom(...ZONES), { minLength: 1, maxLength: 3 }),
    start: clock,
    end: fc.oneof(clock, fc.constant('same')),
    weekdays: fc.oneof(fc.constant(ALL_DAYS), fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { maxLength: 7 })),
    holidayOffsets: fc.uniqueArray(fc.integer({ min: -1, max: 9 }), { maxLength: 3 }),
    regionalRules: fc.boolean(),
    override: fc.boolean(),
    reply: fc.boolean(),
    region: fc.constantFrom(...REGIONS),
  })
  .map((s) => {
    const holidays = s.holidayOffsets.map((d) => new Date(s.now + d * 86_400_000).toISOString().slice(0, 10));
    const p: ContactPolicy = {
      start: s.start,
      end: s.end === 'same' ? s.start : s.end,
      weekdays: s.weekdays,
      holidays,
      regionalRules: s.regionalRules,
      overrideOrganizationHours: s.override,
      answersLeadNow: s.reply,
    };
    return { now: s.now, zones: s.zones, policy: p, region: s.region };
  });

describe('contactWindow against an independent oracle', () => {
  const RUNS = Number(process.env.CONTACT_WINDOW_RUNS ?? 400);

  it('is inside exactly when every zone is inside every applicable window', () => {
    fc.assert(
      fc.property(scenario, ({ now, zones, policy: p, region }) => {
        const decision = contactWindow(new Date(now), zones, p, region);
        expect(decision.inside).toBe(oracleInside(now, zones, p, region));
      }),
      { numRuns: RUNS, seed: 20261123 },
    );
  });

  it('opens at the first minute the oracle allows, with nothing allowed before', () => {
    fc.assert(
      fc.property(scenario, ({ now, zones, policy: p, region }) => {
        const decision = contactWindow(new Date(now), zones, p, region);
        if (decision.inside) return;
        const opens = decision.opensAt.getTime();
        expect(opens).toBeGreaterThan(now);
        const none = decision.reason.startsWith('no common contact window');
        if (none) expect(opens).toBe(now + SEARCH_DAYS * 86_400_000);
        else {
          expect(opens % 60_000).toBe(0);
          expect(oracleInside(opens, zones, p, region)).toBe(true);
          expect(oracleInside(opens - 60_000, zones, p, region)).toBe(false);
        }
        const span = opens - now;
        for (let i = 0; i < 50; i++) {
          const t = now + Math.floor((span * i) / 50);
          expect(oracleInside(t, zones, p, region)).toBe(false);
        }
      }),
      { numRuns: RUNS, seed: 20261124 },
    );
  });

  it('never sees a no-common-window verdict the oracle could open within the search', () => {
    // Minute by minute over the eight days, on a few cases only (slow by design).
    fc.assert(
      fc.property(scenario, ({ now, zones, policy: p, region }) => {
        const decision = contactWindow(new Date(now), zones, p, region);
        if (decision.inside || !decision.reason.startsWith('no common contact window')) return;
        for (let t = Math.floor(now / 60_000) * 60_000 + 60_000; t <= now + SEARCH_DAYS * 86_400_000; t += 60_000) {
          expect(oracleInside(t, zones, p, region)).toBe(false);
        }
      }),
      { numRuns: 40, seed: 20261125 },
    );
  });
});
