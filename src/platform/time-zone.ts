import { DomainError } from './errors.js';

/** IANA names only (what Intl accepts), or a 400 naming the field. */
export function checkTimeZone(zone: string, field = 'timeZone'): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    throw new DomainError('invalid_time_zone', { field });
  }
}
