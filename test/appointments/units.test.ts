import { describe, expect, it } from 'vitest';
import { blocksOf, freeSlots, slotLabel } from '../../src/appointments/slots.js';
import { windowFromText } from '../../src/agent/scripted-booking.js';

const WEEKDAYS = {
  mon: [['09:00', '17:00']],
  tue: [['09:00', '17:00']],
  wed: [['09:00', '17:00']],
  thu: [['09:00', '17:00']],
  fri: [['09:00', '17:00']],
};

describe('the embedded calendar, pure', () => {
  it("cuts weekly hours into slots in the calendar's zone, across a daylight-saving change, skipping held blocks", () => {
    // New York springs forward on Sunday 2026-03-08: 09:00 is 14:00Z on Friday the 6th and 13:00Z on Monday the 9th.
    const slots = freeSlots({
      from: new Date('2026-03-06T00:00:00Z'),
      to: new Date('2026-03-10T00:00:00Z'),
      durationMinutes: 60,
      timeZone: 'America/New_York',
      weeklyHours: WEEKDAYS,
      taken: new Set(blocksOf(new Date('2026-03-09T13:30:00Z'), new Date('2026-03-09T14:00:00Z'))),
      limit: 100,
    });
    expect(slots[0]).toEqual({ start: '2026-03-06T14:00:00.000Z', end: '2026-03-06T15:00:00.000Z' });
    expect(slots.filter((s) => s.start.startsWith('2026-03-06'))).toHaveLength(8);
    const monday = slots.filter((s) => s.start.startsWith('2026-03-09')).map((s) => s.start.slice(11, 16));
    // 09:00 (13:00Z) overlaps the held 13:30Z block: left out.
    expect(monday).toEqual(['14:00', '15:00', '16:00', '17:00', '18:00', '19:00', '20:00']);
    expect(slots.some((s) => s.start.startsWith('2026-03-07') || s.start.startsWith('2026-03-08'))).toBe(false);
  });

  it('an appointment holds every 15-minute block it touches', () => {
    expect(blocksOf(new Date('2026-07-01T10:10:00Z'), new Date('2026-07-01T10:40:00Z'))).toEqual([
      '2026-07-01T10:00:00.000Z',
      '2026-07-01T10:15:00.000Z',
      '2026-07-01T10:30:00.000Z',
    ]);
  });

  it("labels a slot in the lead's zone and language", () => {
    expect(slotLabel('2026-07-02T19:00:00Z', 'America/Los_Angeles', 'en-US')).toBe('Thu, Jul 2, 12:00 PM PDT');
    expect(slotLabel('2026-07-02T19:00:00Z', 'Europe/Paris', 'fr')).toBe('jeu. 2 juil., 21:00 UTC+2');
    expect(slotLabel('2026-07-02T19:00:00Z', 'Europe/Berlin', 'de-DE')).toBe('Do., 2. Juli, 21:00 MESZ');
  });

  it("reads the window a lead names, in the lead's zone", () => {
    const wednesday = new Date('2026-07-01T16:00:00Z');
    expect(windowFromText('can we talk Thursday afternoon?', 'America/Los_Angeles', wednesday)).toEqual({
      from: '2026-07-02T19:00:00.000Z',
      to: '2026-07-03T00:00:00.000Z',
    });
    expect(windowFromText('tomorrow morning?', 'Europe/Paris', wednesday)).toEqual({
      from: '2026-07-02T06:00:00.000Z',
      to: '2026-07-02T10:00:00.000Z',
    });
    // "Wednesday" on a Wednesday is next week's.
    expect(windowFromText('wednesday works', 'UTC', wednesday).from).toBe('2026-07-08T00:00:00.000Z');
    expect(windowFromText('sounds good', 'UTC', wednesday)).toEqual({});
  });
});
