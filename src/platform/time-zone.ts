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

/**
 * The zone an organization gets when none was given: an organization's zone is
 * never a silent UTC (a "9 am" send would land in the middle of the night).
 * New organizations store the zone they were created with (cli: --time-zone);
 * this covers documents written before that.
 */
export const FALLBACK_TIME_ZONE = 'America/New_York';
