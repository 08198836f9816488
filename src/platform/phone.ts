import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { DomainError } from './errors.js';

const DIGITS_ONLY = /^\d+$/;

/**
 * E.164 (`+` and digits) or a 400 naming the field. "Possible" rather than
 * "valid" as the last resort: numbering plans change faster than metadata, and
 * test ranges (555-01xx) must be usable.
 *
 * Digits alone are ambiguous: clients strip the `+` (`442079460958` is
 * +44 20 7946 0958) while people type national numbers (`4155550100`). In
 * that order:
 * 1. a valid national number of the default country is that number, so a
 *    10-digit US number stays US even when its digits also spell a valid
 *    foreign number (`4325550100` is +1 432 and +43 2555);
 * 2. else digits that spell a valid number when read with a leading `+` are
 *    that number (the stripped `+`);
 * 3. else the default country's reading if it is a possible number, else 400.
 * Anything that is not digits alone (a `+`, spaces, brackets) is read as
 * written, with the default country for a national number.
 */
export function normalizePhone(input: string, defaultCountry: string, field = 'phone'): string {
  const text = input.trim();
  const national = parsePhoneNumberFromString(text, defaultCountry as CountryCode);
  if (!national?.isValid()) {
    const international = strippedPlusReading(text);
    if (international?.isValid()) return international.number;
  }
  if (!national || !national.isPossible()) throw new DomainError('invalid_phone', { field });
  return national.number;
}

/**
 * Digits alone read with a leading `+`, and `00` (the international prefix most of the world dials, which a US
 * default country does not know: `0034 612 345 678`) read as `+`. Formatting between digits is ignored.
 */
function strippedPlusReading(text: string) {
  const compact = text.replace(FORMATTING, '');
  if (DOUBLE_ZERO.test(compact)) return parsePhoneNumberFromString(`+${compact.slice(2)}`);
  return DIGITS_ONLY.test(text) ? parsePhoneNumberFromString(`+${text}`) : undefined;
}

const FORMATTING = /[\s().-]/g;
const DOUBLE_ZERO = /^00\d+$/;

/**
 * The E.164 numbers a look-up may mean, most likely first. Creating needs a valid (or possible) number; finding
 * does not: a lead stored as `+447700900555` (possible, not valid: a drama range) is found from
 * `447700900555`, which creation would read otherwise. Empty when the text spells no number at all.
 */
export function phoneLookupCandidates(input: string, defaultCountry: string): string[] {
  const candidates: string[] = [];
  try {
    candidates.push(normalizePhone(input, defaultCountry));
  } catch {
    /* no creatable reading: the possible ones below may still find a stored lead */
  }
  const plus = strippedPlusReading(input.trim());
  if (plus?.isPossible() && !candidates.includes(plus.number)) candidates.push(plus.number);
  return candidates;
}

/** Whether an E.164 number is a valid number of its country's plan (not merely possible): a number worth texting. */
export function isValidPhone(e164: string): boolean {
  return parsePhoneNumberFromString(e164)?.isValid() ?? false;
}
