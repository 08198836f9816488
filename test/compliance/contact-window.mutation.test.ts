import type { PhoneNumber } from 'libphonenumber-js';
import { describe, expect, it, vi } from 'vitest';
import { insideWindow, localMinutes, nextWindowStart } from '../../src/compliance/contact-hours.js';
import { contactWindow, nextLocalClock, type ContactPolicy } from '../../src/compliance/contact-window.js';
import {
  clearPhoneCache,
  isPhoneCached,
  regionFromGeocode,
  regionOfPhone,
  zonesForLead,
} from '../../src/compliance/lead-zones.js';

/** Numbers whose next time-zone look-up fails, as when the data file cannot be read (this file only). */
const failNext = vi.hoisted(() => new Set<string>());
vi.mock('../../src/compliance/phone-geo.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/compliance/phone-geo.js')>();
  return {
    ...real,
    phoneTimezones: async (phone: PhoneNumber) => {
      if (failNext.delete(phone.number)) throw new Error('time-zone data unreadable');
      return real.phoneTimezones(phone);
    },
  };
});

/**
 * Boundaries of the contact-hours arithmetic that the broader suites
 * (contact-window.test.ts, contact-hours.test.ts) leave open: both edges of a
 * window over midnight, clock strings that only look like HH:MM, the
 * minute before a daylight-saving jump, the order of openings across a
 * transition further ahead, the exact error messages, and the phone look-up
 * cache after a failed look-up. Fast (one phone look-up).
 */

const NY = 'America/New_York';
const policy = (over: Partial<ContactPolicy> = {}): ContactPolicy => ({
  start: '08:00',
  end: '21:00',
  weekdays: [0, 1, 2, 3, 4, 5, 6],
  holidays: [],
  regionalRules: false,
  ...over,
});

describe('contact-hours: insideWindow edges', () => {
  it('a window over midnight includes its start and excludes its end', () => {
    const night = { start: '22:00', end: '02:00' };
    expect(insideWindow(new Date('2026-07-01T22:00:00Z'), 'UTC', night)).toBe(true);
    expect(insideWindow(new Date('2026-07-01T21:59:00Z'), 'UTC', night)).toBe(false);
    expect(insideWindow(new Date('2026-07-01T01:59:00Z'), 'UTC', night)).toBe(true);
    expect(insideWindow(new Date('2026-07-01T02:00:00Z'), 'UTC', night)).toBe(false);
    expect(insideWindow(new Date('2026-07-01T00:00:00Z'), 'UTC', night)).toBe(true);
  });

  it('a same-day window includes its start and excludes its end, to the minute', () => {
    const day = { start: '09:30', end: '17:15' };
    expect(insideWindow(new Date('2026-07-01T09:30:00Z'), 'UTC', day)).toBe(true);
    expect(insideWindow(new Date('2026-07-01T09:29:00Z'), 'UTC', day)).toBe(false);
    expect(insideWindow(new Date('2026-07-01T17:14:00Z'), 'UTC', day)).toBe(true);
    expect(insideWindow(new Date('2026-07-01T17:15:00Z'), 'UTC', day)).toBe(false);
    expect(insideWindow(new Date('2026-07-01T17:15:00Z'), 'UTC', { start: '17:15', end: '17:15' })).toBe(true);
  });

  it('reads hours and minutes of the local clock', () => {
    expect(localMinutes(new Date('2026-07-01T23:59:00Z'), 'UTC')).toBe(23 * 60 + 59);
    expect(localMinutes(new Date('2026-07-01T00:00:00Z'), 'UTC')).toBe(0);
    expect(localMinutes(new Date('2026-07-01T05:15:00Z'), 'Asia/Kolkata')).toBe(10 * 60 + 45);
    expect(
      nextWindowStart(new Date('2026-07-01T09:31:00Z'), 'UTC', { start: '09:30', end: '17:15' }).toISOString(),
    ).toBe('2026-07-02T09:30:00.000Z');
  });
});

describe('contact-window: nextLocalClock', () => {
  it('takes the minute before a spring-forward jump as a real time, not as the jump', () => {
    // 01:59 EST on 2026-03-08 is 06:59Z; half a minute later the next 01:59 is the following night (EDT).
    expect(new Date(nextLocalClock(Date.parse('2026-03-08T06:59:30Z'), NY, 119)).toISOString()).toBe(
      '2026-03-09T05:59:00.000Z',
    );
    expect(new Date(nextLocalClock(Date.parse('2026-03-08T06:58:30Z'), NY, 119)).toISOString()).toBe(
      '2026-03-08T06:59:00.000Z',
    );
    // 03:00 EDT exists: the jump lands exactly on it.
    expect(new Date(nextLocalClock(Date.parse('2026-03-08T06:30:00Z'), NY, 180)).toISOString()).toBe(
      '2026-03-08T07:00:00.000Z',
    );
  });

  it('throws, naming the clock and zone, for a time of day it cannot find within two days', () => {
    expect(() => nextLocalClock(Date.parse('2026-07-01T12:00:00Z'), 'UTC', -3000)).toThrow(
      'no -3000 minutes past midnight within two days in UTC',
    );
  });
});

describe('contact-window: contactWindow', () => {
  it('rejects clock times that only contain HH:MM, with a message naming them', () => {
    for (const bad of ['108:00', '08:000', ' 08:00', '08:00 ', 'x08:00', '8:00', '24:00', '12:60']) {
      expect(() => contactWindow(new Date('2026-07-01T12:00:00Z'), [NY], policy({ start: bad }), null), bad).toThrow(
        `"${bad}" is not a clock time (HH:MM)`,
      );
    }
    expect(() => contactWindow(new Date('2026-07-01T12:00:00Z'), [NY], policy({ end: '21:00:00' }), null)).toThrow(
      '"21:00:00" is not a clock time (HH:MM)',
    );
    expect(() => contactWindow(new Date('2026-07-01T12:00:00Z'), [], policy(), null)).toThrow(
      'contactWindow needs at least one time zone',
    );
  });

  it('opens at the first allowed instant even when a daylight-saving change comes later in the search', () => {
    // A prompt reply (no legal floor). Monday 07:00 EST; Sundays and Wednesdays, all day. Wednesday 00:00 EST comes before the Sunday 2026-03-08 change.
    const decision = contactWindow(
      new Date('2026-03-02T12:00:00Z'),
      [NY],
      policy({ start: '00:00', end: '00:00', weekdays: [0, 3], answersLeadNow: true }),
      null,
    );
    expect(decision).toEqual({
      inside: false,
      opensAt: new Date('2026-03-04T05:00:00Z'),
      reason: 'not a contact day (Monday) in America/New_York',
    });
    // Only Sundays: the first opening is Sunday 00:00 EST, a few hours before that change.
    const sundays = contactWindow(
      new Date('2026-03-02T12:00:00Z'),
      [NY],
      policy({ start: '00:00', end: '00:00', weekdays: [0], answersLeadNow: true }),
      null,
    );
    expect(sundays).toEqual({
      inside: false,
      opensAt: new Date('2026-03-08T05:00:00Z'),
      reason: 'not a contact day (Monday) in America/New_York',
    });
  });
});

describe('lead-zones', () => {
  it('reads a state code only at the very end of the place name', () => {
    expect(regionFromGeocode('US', 'Springfield, IL')).toBe('US-IL');
    expect(regionFromGeocode('US', 'Springfield, IL, US')).toBeNull();
    expect(regionFromGeocode('US', 'Springfield, IL area')).toBeNull();
    expect(regionFromGeocode('CA', 'Halifax, NS')).toBe('CA-NS');
  });

  it('does not remember a failed look-up: the next one tries again', async () => {
    clearPhoneCache();
    failNext.add('+14155550100');
    await expect(zonesForLead({ timeZone: null, phone: '+14155550100' }, 'America/Chicago')).rejects.toThrow(
      'time-zone data unreadable',
    );
    expect(isPhoneCached('+14155550100')).toBe(false);
    expect(await zonesForLead({ timeZone: null, phone: '+14155550100' }, 'America/Chicago')).toEqual({
      zones: ['America/Los_Angeles'],
      source: 'phone',
    });
    expect(await regionOfPhone('+14155550100')).toBe('US-CA');
    expect(isPhoneCached('+14155550100')).toBe(true);
    clearPhoneCache();
  });
});
