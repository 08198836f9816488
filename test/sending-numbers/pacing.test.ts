import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reserve, type Bucket } from '../../src/sending-numbers/pacing.js';

const EMPTY: Bucket = { nextSlotMs: 0, day: null, daySegments: 0 };
const T0 = Date.parse('2026-11-23T12:00:00.000Z');
const HOUR = 3_600_000;

describe('pacing: one number as virtual scheduling (GCRA)', () => {
  it('the first send goes now; the next waits k / rate seconds', () => {
    const a = reserve(EMPTY, { ratePerSecond: 2, dailyCap: null }, 3, T0, 10 * HOUR);
    expect(a).toMatchObject({ kind: 'reserved', slotMs: T0, bucket: { nextSlotMs: T0 + 1500, daySegments: 3, day: '2026-11-23' } });
    const b = reserve(a.kind === 'reserved' ? a.bucket : EMPTY, { ratePerSecond: 2, dailyCap: null }, 1, T0 + 100, 10 * HOUR);
    expect(b).toMatchObject({ kind: 'reserved', slotMs: T0 + 1500 });
  });

  it('an idle bucket does not save up a burst: the slot is never before now', () => {
    const r = reserve({ nextSlotMs: T0 - 60_000, day: '2026-11-23', daySegments: 5 }, { ratePerSecond: 1, dailyCap: null }, 1, T0, HOUR);
    expect(r).toMatchObject({ kind: 'reserved', slotMs: T0, bucket: { nextSlotMs: T0 + 1000 } });
  });

  it('past the maximum wait nothing is reserved and the reason says how far the slot was', () => {
    const r = reserve({ nextSlotMs: T0 + 11 * HOUR, day: null, daySegments: 0 }, { ratePerSecond: 1, dailyCap: null }, 1, T0, 10 * HOUR);
    expect(r.kind).toBe('too_late');
    expect(r.kind === 'too_late' && r.reason).toMatch(/next free slot is 11 h away .*beyond the maximum wait of 10 h/);
  });

  it('the daily cap moves a send that would pass it to the next UTC midnight, counted on that day', () => {
    const evening = Date.parse('2026-11-23T20:00:00.000Z');
    const full: Bucket = { nextSlotMs: evening, day: '2026-11-23', daySegments: 9 };
    const r = reserve(full, { ratePerSecond: 1, dailyCap: 10 }, 2, evening, 10 * HOUR);
    expect(r).toMatchObject({ kind: 'reserved', slotMs: Date.parse('2026-11-24T00:00:00.000Z'), bucket: { day: '2026-11-24', daySegments: 2 } });
    const morning = Date.parse('2026-11-23T03:00:00.000Z');
    expect(reserve({ ...full, nextSlotMs: morning }, { ratePerSecond: 1, dailyCap: 10 }, 2, morning, 10 * HOUR).kind).toBe('too_late');
    expect(reserve(EMPTY, { ratePerSecond: 1, dailyCap: 1 }, 2, T0, 10 * HOUR)).toMatchObject({ kind: 'too_late', reason: expect.stringMatching(/more than the number's daily cap of 1/) });
  });

  it('property: sends reserved one after another at any times never exceed rate * T + one message in any window of T', () => {
    const sends = fc.array(fc.record({ segments: fc.integer({ min: 1, max: 4 }), gapMs: fc.integer({ min: 0, max: 2000 }) }), { minLength: 1, maxLength: 80 });
    fc.assert(fc.property(fc.double({ min: 0.05, max: 50, noNaN: true }), sends, fc.integer({ min: 100, max: 20_000 }), (rate, list, windowMs) => {
      let bucket = EMPTY;
      let now = T0;
      const slots: { at: number; segments: number }[] = [];
      for (const s of list) {
        now += s.gapMs;
        const r = reserve(bucket, { ratePerSecond: rate, dailyCap: null }, s.segments, now, 1000 * HOUR);
        if (r.kind !== 'reserved') throw new Error('unexpected too_late');
        expect(r.slotMs).toBeGreaterThanOrEqual(now);
        bucket = r.bucket;
        slots.push({ at: r.slotMs, segments: s.segments });
      }
      for (const start of slots) {
        const inWindow = slots.filter((x) => x.at >= start.at && x.at < start.at + windowMs).reduce((n, x) => n + x.segments, 0);
        expect(inWindow).toBeLessThanOrEqual((rate * windowMs) / 1000 + 4 + 1e-6);
      }
    }));
  });

  it('property: with a daily cap, no UTC day ever gets more than the cap', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 20 }), fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 60 }), (cap, list) => {
      let bucket = EMPTY;
      const perDay = new Map<string, number>();
      for (const k of list) {
        const r = reserve(bucket, { ratePerSecond: 1000, dailyCap: cap }, k, T0, 1000 * HOUR);
        if (r.kind === 'too_late') {
          expect(k).toBeGreaterThan(cap);
          continue;
        }
        bucket = r.bucket;
        const day = new Date(r.slotMs).toISOString().slice(0, 10);
        perDay.set(day, (perDay.get(day) ?? 0) + k);
      }
      for (const n of perDay.values()) expect(n).toBeLessThanOrEqual(cap);
    }));
  });
});
