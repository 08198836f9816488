import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { localTime } from './contact-window.js';
import { phoneGeocode, phoneTimezones } from './phone-geo.js';

export type ZoneSource = 'lead' | 'phone' | 'organization';
export interface LeadZones {
  zones: string[];
  source: ZoneSource;
}

/**
 * A phone number's zone list tells where the lead is only when its zones lie
 * within MAX_PHONE_ZONE_SPREAD_MINUTES of UTC offset of each other, in
 * January and in July (both sides of daylight saving, in both hemispheres).
 *
 * Why 3 hours: the caller contacts only in the intersection of the zones'
 * windows, and the legal day (08:00-21:00) is 13 hours, so a list spanning
 * 3 hours still leaves 10 of them. In the bundled data every area-code level
 * list is within 2.5 hours (Idaho's Boise/Los_Angeles 1 h, Alaska's
 * Adak/Anchorage 1 h, Labrador 1.5 h, the UK's London/Jersey/... 0 h), while
 * lists that mean "somewhere in the country" are wider: +1 without an area
 * code (toll-free 8XX, 5XX personal numbers) gives 42 zones over 21 hours,
 * from Guam to Newfoundland, whose intersection is empty; +7 gives 16 zones
 * over 10 hours; +61 8 zones over 4.5 hours. Those fall through to the
 * organization's zone. Country lists within 3 hours (Mexico 3 h, Brazil 3 h)
 * are kept: their intersection is still a usable day and is a better guess
 * than an organization possibly on another continent.
 */
export const MAX_PHONE_ZONE_SPREAD_MINUTES = 180;

/** Numbers remembered (their zones and region), least recently used evicted first. */
export const PHONE_CACHE_SIZE = 10_000;

interface PhoneFacts {
  /** The number's zones when they tell where it is (see MAX_PHONE_ZONE_SPREAD_MINUTES), else null. */
  zones: string[] | null;
  region: string | null;
}

/** Zone names already checked: building a formatter to check one cost a burst of first contacts 4 % of the worker's CPU. */
const checkedZones = new Map<string, boolean>();

function isTimeZone(zone: string): boolean {
  const known = checkedZones.get(zone);
  if (known !== undefined) return known;
  let valid = true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    valid = false;
  }
  checkedZones.set(zone, valid);
  return valid;
}

/** Zone lists already judged (a few hundred: one per area code), by their names. */
const judgedLists = new Map<string, string[] | null>();

const offsetMinutes = (zone: string, at: number): number => (localTime(zone, at).wall - at) / 60_000;

/** The widest gap between the zones' UTC offsets, over mid-January and mid-July of this year. */
export function zoneSpreadMinutes(zones: readonly string[]): number {
  const year = new Date().getUTCFullYear();
  let spread = 0;
  for (const at of [Date.UTC(year, 0, 15, 12), Date.UTC(year, 6, 15, 12)]) {
    const offsets = zones.map((zone) => offsetMinutes(zone, at));
    spread = Math.max(spread, Math.max(...offsets) - Math.min(...offsets));
  }
  return spread;
}

/** Keep a phone's zone list only when it tells where the lead is (see MAX_PHONE_ZONE_SPREAD_MINUTES). */
export function informativeZones(zones: readonly string[] | null): string[] | null {
  const key = (zones ?? []).join('\n');
  const judged = judgedLists.get(key);
  if (judged !== undefined) return judged && [...judged];
  const known = (zones ?? []).filter(isTimeZone);
  const kept = known.length === 0 || zoneSpreadMinutes(known) > MAX_PHONE_ZONE_SPREAD_MINUTES ? null : known;
  judgedLists.set(key, kept);
  return kept && [...kept];
}

// ---------------------------------------------------------------------------
// Regions: US states (and DC) and Canadian provinces, by area code

const US_STATES: Record<string, string> = {
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

const CA_PROVINCES: Record<string, string> = {
  Alberta: 'AB',
  'British Columbia': 'BC',
  'British Colombia': 'BC' /* sic, in the data */,
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

const US_CODES = new Set(Object.values(US_STATES));
const CA_CODES = new Set(Object.values(CA_PROVINCES));

/** NANP countries that are US territories, with their ISO 3166-2:US subdivision. */
const US_TERRITORIES = new Set(['PR', 'GU', 'VI', 'AS', 'MP']);

/**
 * The geocoder names a place either "City, XX" (a state or province code) or
 * by the region's name ("Florida", "Washington State", "Ontario"). A name
 * that covers several regions ("Nova Scotia/Prince Edward Island") gives null.
 */
export function regionFromGeocode(country: 'US' | 'CA', place: string | null): string | null {
  if (!place) return null;
  const codes = country === 'US' ? US_CODES : CA_CODES;
  const names = country === 'US' ? US_STATES : CA_PROVINCES;
  const suffix = /, ([A-Z]{2})$/.exec(place)?.[1];
  const code = suffix !== undefined ? suffix : names[place];
  return code !== undefined && codes.has(code) ? `${country}-${code}` : null;
}

async function lookUp(e164: string): Promise<PhoneFacts> {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed || !parsed.isValid()) return { zones: null, region: null };
  const zones = informativeZones(await phoneTimezones(parsed));
  let region: string | null = null;
  const country = parsed.country;
  if (country === 'US' || country === 'CA') region = regionFromGeocode(country, await phoneGeocode(parsed));
  else if (country !== undefined && US_TERRITORIES.has(country)) region = `US-${country}`;
  return { zones, region };
}

/**
 * Each number is looked up once and remembered, in-flight look-ups shared,
 * the least recently used forgotten: the data files are decoded once
 * (phone-geo.ts), but parsing and checking the zones still cost.
 */
const cache = new Map<string, Promise<PhoneFacts>>();

function phoneFacts(phone: string | null): Promise<PhoneFacts> {
  const key = phone?.trim().replace(/[\s().-]/g, '') ?? '';
  if (!key.startsWith('+')) return Promise.resolve({ zones: null, region: null });
  const known = cache.get(key);
  if (known) {
    cache.delete(key);
    cache.set(key, known);
    return known;
  }
  const facts = lookUp(key);
  cache.set(key, facts);
  facts.catch(() => cache.delete(key));
  while (cache.size > PHONE_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return facts;
}

/** Forget every remembered number (tests). */
export function clearPhoneCache(): void {
  cache.clear();
}

/** How many numbers are remembered (tests). */
export function phoneCacheSize(): number {
  return cache.size;
}

/** Whether a number (E.164, as remembered) is remembered (tests). */
export function isPhoneCached(e164: string): boolean {
  return cache.has(e164);
}

/**
 * Zone precedence: the lead's own IANA timeZone -> the zone(s) of its phone
 * number -> the organization's zone. A phone whose zones are too spread to
 * say where it is (MAX_PHONE_ZONE_SPREAD_MINUTES), an invalid or unparseable
 * phone, and an unknown lead zone all fall through.
 */
export async function zonesForLead(
  lead: { timeZone: string | null; phone: string | null },
  organizationZone: string,
): Promise<LeadZones> {
  if (lead.timeZone && isTimeZone(lead.timeZone)) return { zones: [lead.timeZone], source: 'lead' };
  const { zones } = await phoneFacts(lead.phone);
  if (zones) return { zones: [...zones], source: 'phone' };
  return { zones: [organizationZone], source: 'organization' };
}

/** The US state / CA province (e.g. 'US-CA', 'US-FL', 'CA-ON') a phone number's area code belongs to, or null. US territories give 'US-PR', 'US-GU', ... */
export async function regionOfPhone(phone: string | null): Promise<string | null> {
  return (await phoneFacts(phone)).region;
}
