import fc from 'fast-check';
import {
  getCountries,
  getExampleNumber,
  parsePhoneNumberFromString,
  type CountryCode,
  type PhoneNumber,
} from 'libphonenumber-js';
import examples from 'libphonenumber-js/examples.mobile.json';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/platform/errors.js';
import { normalizePhone } from '../../src/platform/phone.js';

/**
 * The digits-only rule of src/platform/phone.ts, over every country the
 * metadata knows (a number and a default country drawn independently), so
 * the paths meet: national vs international reading, both valid, neither.
 */
const RUNS = Number(process.env.PHONE_RUNS ?? 500);
const SEED = Number(process.env.PHONE_SEED ?? 20261123);
const params = (seed: number) => ({ numRuns: RUNS, seed });

const countries = getCountries().filter((c) => getExampleNumber(c, examples) !== undefined);
const country = fc.constantFrom(...countries);
const DEFAULTS = ['US', 'GB', 'DE', 'FR', 'IN', 'BR', 'AU', 'CA', 'MX', 'ES', 'IT', 'JP', 'AT', 'CH', 'NL'] as const;
const defaultCountry = fc.constantFrom<string>(...DEFAULTS, ...countries);

/** A valid number of a country: its example number with its last digits replaced, kept only if still valid. */
const validNumberOf = (c: fc.Arbitrary<CountryCode>): fc.Arbitrary<PhoneNumber> =>
  fc
    .tuple(c, fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 4 }))
    .map(([cc, tail]) => {
      const example = getExampleNumber(cc, examples)!;
      const national = String(example.nationalNumber);
      const digits =
        national.slice(0, Math.max(1, national.length - tail.length)) + tail.join('').slice(0, national.length - 1);
      return parsePhoneNumberFromString(`+${example.countryCallingCode}${digits}`);
    })
    .filter((n): n is PhoneNumber => n !== undefined && n.isValid());
const validNumber = validNumberOf(country);

const digitsOnly = (s: string) => s.replace(/\D/g, '');
const E164 = /^\+[1-9]\d{1,14}$/;

function outcome(input: string, dc: string): string | { error: string } {
  try {
    return normalizePhone(input, dc);
  } catch (err) {
    if (err instanceof DomainError && err.status === 400) return { error: err.message };
    throw err;
  }
}

describe('normalizePhone (property)', () => {
  it('keeps a valid number written in E.164 whatever the default country', () => {
    fc.assert(
      fc.property(validNumber, defaultCountry, (n, dc) => {
        expect(normalizePhone(n.number, dc)).toBe(n.number);
        expect(normalizePhone(`  ${n.number} `, dc)).toBe(n.number);
      }),
      params(SEED),
    );
  });

  it('reads digits without their + as that number, unless they are a valid national number of the default country', () => {
    fc.assert(
      fc.property(validNumber, defaultCountry, (n, dc) => {
        const digits = n.number.slice(1);
        const national = parsePhoneNumberFromString(digits, dc as CountryCode);
        const expected = national?.isValid() ? national.number : n.number;
        expect(normalizePhone(digits, dc)).toBe(expected);
      }),
      params(SEED + 1),
    );
  });

  it('recovers the stripped + of every valid foreign number whose digits are too long to be a national number of the default country', () => {
    fc.assert(
      fc.property(validNumber, fc.constantFrom(...DEFAULTS), (n, dc) => {
        const digits = n.number.slice(1);
        fc.pre(n.country !== dc && parsePhoneNumberFromString(digits, dc as CountryCode)?.isPossible() !== true);
        expect(normalizePhone(digits, dc)).toBe(n.number);
      }),
      params(SEED + 2),
    );
  });

  it('keeps a valid national number, typed as digits alone, in the default country (a 10-digit US number stays US)', () => {
    fc.assert(
      fc.property(validNumber, (n) => {
        const dc = n.country!;
        fc.pre(dc !== undefined);
        const national = digitsOnly(n.formatNational());
        fc.pre(parsePhoneNumberFromString(national, dc)?.number === n.number); // the country's own national form reads back
        expect(normalizePhone(national, dc)).toBe(n.number);
        // Formatted the national way (spaces, brackets, dashes) it is the same number.
        expect(normalizePhone(n.formatNational(), dc)).toBe(n.number);
      }),
      params(SEED + 3),
    );
  });

  it('reads a NANP number typed with its leading 1 (11 digits) as +1, in any NANP default country', () => {
    const nanp = validNumberOf(fc.constantFrom<CountryCode>('US', 'CA'));
    fc.assert(
      fc.property(nanp, fc.constantFrom('US', 'CA'), (n, dc) => {
        const ten = String(n.nationalNumber);
        expect(normalizePhone(ten, dc)).toBe(n.number);
        expect(normalizePhone(`1${ten}`, dc)).toBe(n.number);
      }),
      params(SEED + 4),
    );
  });

  it('answers E.164 or a 400 naming the field for any text, and is idempotent', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.stringMatching(/^\+?\d{1,17}$/),
      fc.stringMatching(/^[\d ()+.-]{1,20}$/),
      validNumber.map((n) => n.number.slice(1, 1 + Math.max(1, n.number.length - 3))),
    );
    fc.assert(
      fc.property(text, defaultCountry, (input, dc) => {
        const first = outcome(input, dc);
        if (typeof first === 'string') {
          expect(first).toMatch(E164);
          expect(normalizePhone(first, dc)).toBe(first);
        } else {
          expect(first.error).toBe('phone is not a valid phone number');
        }
      }),
      params(SEED + 5),
    );
  });
});

describe('normalizePhone (examples)', () => {
  it.each([
    ['442079460958', 'US', '+442079460958'], // the issue: a client stripped the +
    ['4155550100', 'US', '+14155550100'],
    ['14155550100', 'US', '+14155550100'],
    ['4325550100', 'US', '+14325550100'], // also +43 2555 0100 (Austria): the US reading wins
    ['02079460958', 'GB', '+442079460958'],
    ['442079460958', 'GB', '+442079460958'],
    ['33142685300', 'US', '+33142685300'],
    ['491711234567', 'US', '+491711234567'],
    ['(415) 555-0100', 'US', '+14155550100'],
    ['011 44 20 7946 0958', 'US', '+442079460958'],
  ])('%s with default %s is %s', (input, dc, expected) => {
    expect(normalizePhone(input, dc)).toBe(expected);
  });

  it.each([['+4155550100'], ['12'], ['call me'], ['']])('rejects %j with the field named', (input) => {
    expect(outcome(input, 'US')).toEqual({ error: 'phone is not a valid phone number' });
    expect(() => normalizePhone(input, 'US', 'from')).toThrow('from is not a valid phone number');
  });
});
