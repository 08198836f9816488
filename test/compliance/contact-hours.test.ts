import { describe, expect, it } from 'vitest';
import { insideWindow, localMinutes, nextWindowStart } from '../../src/compliance/contact-hours.js';

const DAY = { start: '08:00', end: '21:00' };

describe('contact hours (pure time arithmetic, fixed instants)', () => {
  it('reads local time in the lead zone', () => {
    expect(localMinutes(new Date('2026-07-01T12:30:00Z'), 'America/New_York')).toBe(8 * 60 + 30);
    expect(localMinutes(new Date('2026-01-01T12:30:00Z'), 'America/New_York')).toBe(7 * 60 + 30);
  });

  it('is inside 08:00-21:00 by local time, end exclusive', () => {
    expect(insideWindow(new Date('2026-07-01T12:00:00Z'), 'America/New_York', DAY)).toBe(true); // 08:00 EDT
    expect(insideWindow(new Date('2026-07-01T11:59:00Z'), 'America/New_York', DAY)).toBe(false); // 07:59
    expect(insideWindow(new Date('2026-07-02T01:00:00Z'), 'America/New_York', DAY)).toBe(false); // 21:00
    expect(insideWindow(new Date('2026-07-02T00:59:00Z'), 'America/New_York', DAY)).toBe(true); // 20:59
  });

  it('handles windows over midnight and equal ends (no restriction)', () => {
    const night = { start: '22:00', end: '02:00' };
    expect(insideWindow(new Date('2026-07-01T23:00:00Z'), 'UTC', night)).toBe(true);
    expect(insideWindow(new Date('2026-07-01T01:00:00Z'), 'UTC', night)).toBe(true);
    expect(insideWindow(new Date('2026-07-01T12:00:00Z'), 'UTC', night)).toBe(false);
    expect(insideWindow(new Date('2026-07-01T03:00:00Z'), 'UTC', { start: '00:00', end: '00:00' })).toBe(true);
  });

  it('finds the next opening the same or the next local day', () => {
    expect(nextWindowStart(new Date('2026-07-01T23:30:00Z'), 'UTC', DAY).toISOString()).toBe(
      '2026-07-02T08:00:00.000Z',
    );
    expect(nextWindowStart(new Date('2026-07-01T05:15:00Z'), 'UTC', DAY).toISOString()).toBe(
      '2026-07-01T08:00:00.000Z',
    );
    expect(nextWindowStart(new Date('2026-07-01T05:15:00Z'), 'America/Los_Angeles', DAY).toISOString()).toBe(
      '2026-07-01T15:00:00.000Z',
    );
  });

  it('lands on local 08:00 across a daylight-saving change', () => {
    // 2026-03-08 02:00 America/New_York springs forward; 22:00 local the day before is 03:00Z.
    const next = nextWindowStart(new Date('2026-03-08T03:00:00Z'), 'America/New_York', DAY);
    expect(next.toISOString()).toBe('2026-03-08T12:00:00.000Z'); // 08:00 EDT
    expect(localMinutes(next, 'America/New_York')).toBe(8 * 60);
  });

  it('opens when the clock jumps past a start the spring-forward day skips', () => {
    // 02:30 does not exist on 2026-03-08 in New York: the clock jumps from 01:59 EST to 03:00 EDT (07:00Z).
    const next = nextWindowStart(new Date('2026-03-08T05:00:00Z'), 'America/New_York', {
      start: '02:30',
      end: '05:00',
    });
    expect(next.toISOString()).toBe('2026-03-08T07:00:00.000Z');
    expect(insideWindow(next, 'America/New_York', { start: '02:30', end: '05:00' })).toBe(true);
    // The next day 02:30 exists again.
    expect(nextWindowStart(next, 'America/New_York', { start: '02:30', end: '05:00' }).toISOString()).toBe(
      '2026-03-09T06:30:00.000Z',
    );
  });

  it('takes the first 01:30 after the instant on the fall-back day', () => {
    const window = { start: '01:30', end: '01:45' };
    expect(nextWindowStart(new Date('2026-11-01T05:00:00Z'), 'America/New_York', window).toISOString()).toBe(
      '2026-11-01T05:30:00.000Z',
    ); // 01:30 EDT
    expect(nextWindowStart(new Date('2026-11-01T05:45:00Z'), 'America/New_York', window).toISOString()).toBe(
      '2026-11-01T06:30:00.000Z',
    ); // 01:30 EST
  });

  it('is strictly after the instant, to the minute', () => {
    expect(nextWindowStart(new Date('2026-07-01T08:00:00Z'), 'UTC', DAY).toISOString()).toBe(
      '2026-07-02T08:00:00.000Z',
    );
    expect(nextWindowStart(new Date('2026-07-01T07:59:59Z'), 'UTC', DAY).toISOString()).toBe(
      '2026-07-01T08:00:00.000Z',
    );
    expect(nextWindowStart(new Date('2026-07-01T05:15:00Z'), 'Asia/Kolkata', DAY).toISOString()).toBe(
      '2026-07-02T02:30:00.000Z',
    );
  });
});
