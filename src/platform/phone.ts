import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';
import { BadRequest } from './errors.js';

/**
 * E.164 (`+` and digits) or a 400 naming the field. "Possible" rather than
 * "valid": numbering plans change faster than metadata, and test ranges
 * (555-01xx) must be usable.
 */
export function normalizePhone(input: string, defaultCountry: string, field = 'phone'): string {
  const parsed = parsePhoneNumberFromString(input.trim(), defaultCountry as CountryCode);
  if (!parsed || !parsed.isPossible()) throw new BadRequest(`${field} is not a valid phone number`, 'invalid_phone');
  return parsed.number;
}
