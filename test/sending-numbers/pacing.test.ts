import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { depart, freshHoldMs, giveBack, MAX_HOLD_MS, reserve, type Bucket } from '../../src/sending-numbers/pacing.js';

const EMPTY: Bucket = { nextSlotMs: 0, day: null, daySegments: 0, departureMs: 0 };
const T0 = Date.parse('2026-11-23T12:00:00.000Z');
const HOUR = 3_600_000;

describe('pacing: one number as virtual scheduling (GCRA)', () => {
  it('the first send goes now; the next waits k / rate seconds', () => {
    const a = reserve(EMPTY, { ratePerSecond: 2, dailyCap: null }, 3, T0, 10 * HOUR);
    expect(a).toMatchObject({
      kind: 'reserved',
      slotMs: T0,
      bucket: { nextSlotMs: T0 + 1500, daySegments: 3, day: '2026-11-23' },
    });
    const b = reserve(
      a.kind === 'reserved' ? a.bucket : EMPTY,
      { ratePerSecond: 2, dailyCap: null },
      1,
      T0 + 100,
      10 * HOUR,
    );
    expect(b).toMatchObject({ kind: 'reserved', slotMs: T0 + 1500 });
  });

  it('an idle bucket does not save up a burst: the slot is never before now', () => {
    const r = reserve(
      { nextSlotMs: T0 - 60_000, day: '2026-11-23', daySegments: 5, departureMs: 0 },
      { ratePerSecond: 1, dailyCap: null },
      1,
      T0,
      HOUR,
    );
    expect(r).toMatchObject({ kind: 'reserved', slotMs: T0, bucket: { nextSlotMs: T0 + 1000 } });
  });

  it('past the maximum wait nothing is reserved and the reason says how far the slot was', () => {
    const r = reserve(
      { nextSlotMs: T0 + 11 * HOUR, day: null, daySegments: 0, departureMs: 0 },
      { ratePerSecond: 1, dailyCap: null },
      1,
      T0,
      10 * HOUR,
    );
    expect(r.kind).toBe('too_late');
    expect(r.kind === 'too_late' && r.reason).toMatch(/next free slot is 11 h away .*beyond the maximum wait of 10 h/);
  });

  it('the daily cap moves a send that would pass it to the next UTC midnight, counted on that day', () => {
    const evening = Date.parse('2026-11-23T20:00:00.000Z');
    const full: Bucket = { nextSlotMs: evening, day: '2026-11-23', daySegments: 9, departureMs: 0 };
    const r = reserve(full, { ratePerSecond: 1, dailyCap: 10 }, 2, evening, 10 * HOUR);
    expect(r).toMatchObject({
      kind: 'reserved',
      slotMs: Date.parse('2026-11-24T00:00:00.000Z'),
      bucket: { day: '2026-11-24', daySegments: 2 },
    });
    const morning = Date.parse('2026-11-23T03:00:00.000Z');
    expect(
      reserve({ ...full, nextSlotMs: morning }, { ratePerSecond: 1, dailyCap: 10 }, 2, morning, 10 * HOUR).kind,
    ).toBe('too_late');
    expect(reserve(EMPTY, { ratePerSecond: 1, dailyCap: 1 }, 2, T0, 10 * HOUR)).toMatchObject({
      kind: 'too_late',
      reason: expect.stringMatching(/more than the number's daily cap of 1/),
    });
  });

  it('property: sends reserved one after another at any times never exceed rate * T + one message in any window of T', () => {
    const sends = fc.array(
      fc.record({ segments: fc.integer({ min: 1, max: 4 }), gapMs: fc.integer({ min: 0, max: 2000 }) }),
      { minLength: 1, maxLength: 80 },
    );
    fc.assert(
      fc.property(
        fc.double({ min: 0.05, max: 50, noNaN: true }),
        sends,
        fc.integer({ min: 100, max: 20_000 }),
        (rate, list, windowMs) => {
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
            const inWindow = slots
              .filter((x) => x.at >= start.at && x.at < start.at + windowMs)
              .reduce((n, x) => n + x.segments, 0);
            expect(inWindow).toBeLessThanOrEqual((rate * windowMs) / 1000 + 4 + 1e-6);
          }
        },
      ),
    );
  });

  it('a send whose slot came leaves now, or held up to a second behind the departure before it; further behind it is behind', () => {
    const limits = { ratePerSecond: 4, dailyCap: null };
    expect(depart(EMPTY, limits, 2, T0 - 5000, T0)).toMatchObject({
      kind: 'go',
      atMs: T0,
      bucket: { departureMs: T0 + 500 },
    });
    expect(depart({ ...EMPTY, departureMs: T0 + 400 }, limits, 1, T0, T0)).toMatchObject({
      kind: 'go',
      atMs: T0 + 400,
      bucket: { departureMs: T0 + 650 },
    });
    expect(depart({ ...EMPTY, departureMs: T0 + MAX_HOLD_MS }, limits, 1, T0, T0).kind).toBe('go');
    expect(depart({ ...EMPTY, departureMs: T0 + MAX_HOLD_MS + 1 }, limits, 1, T0, T0)).toEqual({ kind: 'behind' });
    // A slot within the hold is held for; one beyond it is not.
    expect(depart(EMPTY, limits, 1, T0 + 300, T0)).toMatchObject({ kind: 'go', atMs: T0 + 300 });
    expect(depart(EMPTY, limits, 1, T0 + MAX_HOLD_MS + 1, T0)).toEqual({ kind: 'behind' });
    // A send just given a slot is held for two sends' worth of the rate at most, so a fast number's backlog
    // does not keep every job slot of its workers.
    expect(freshHoldMs({ ratePerSecond: 100, dailyCap: null }, 1)).toBe(20);
    expect(freshHoldMs({ ratePerSecond: 0.5, dailyCap: null }, 1)).toBe(MAX_HOLD_MS);
    expect(depart(EMPTY, limits, 1, T0 + 600, T0, freshHoldMs(limits, 1))).toEqual({ kind: 'behind' });
  });

  it('no slot is given further than a hold before the departures booked; a fresh slot keeps the maximum wait of the first ask', () => {
    const limits = { ratePerSecond: 1, dailyCap: null };
    expect(reserve({ ...EMPTY, departureMs: T0 + 5000 }, limits, 1, T0, HOUR)).toMatchObject({
      kind: 'reserved',
      slotMs: T0 + 4000,
    });
    const again = reserve({ ...EMPTY, nextSlotMs: T0 + 5000 }, limits, 1, T0, 10_000, T0 - 6000);
    expect(again).toMatchObject({
      kind: 'too_late',
      reason: expect.stringMatching(
        /next free slot is 5 s away, 11 s after the message first asked for one \(rate 1 segments\/s\), beyond the maximum wait of 10 s/,
      ),
    });
    expect(reserve({ ...EMPTY, nextSlotMs: T0 + 5000 }, limits, 1, T0, 10_000, T0 - 4000).kind).toBe('reserved');
  });

  it('a slot given up no longer counts against the cap of its day', () => {
    const day: Bucket = { ...EMPTY, day: '2026-11-23', daySegments: 5 };
    expect(giveBack(day, 2, T0).daySegments).toBe(3);
    expect(giveBack(day, 2, T0 - 86_400_000)).toBe(day);
  });

  it('property: however late workers come to their sends, departures never exceed rate * T + one message in any window of T, and every send leaves', () => {
    // Sends are reserved as they come; each is run at its slot plus a lag of any size (a stall, a backlog ahead of it);
    // a run that finds the number behind takes a fresh slot and is run again, late by another lag.
    const sends = fc.array(
      fc.record({
        segments: fc.integer({ min: 1, max: 3 }),
        gapMs: fc.integer({ min: 0, max: 1500 }),
        lags: fc.array(fc.integer({ min: 0, max: 8000 }), { minLength: 1, maxLength: 6 }),
      }),
      { minLength: 1, maxLength: 60 },
    );
    fc.assert(
      fc.property(
        fc.double({ min: 0.2, max: 40, noNaN: true }),
        sends,
        fc.integer({ min: 200, max: 5000 }),
        (rate, list, windowMs) => {
          const limits = { ratePerSecond: rate, dailyCap: null };
          let bucket = EMPTY;
          let now = T0;
          const runs: { at: number; i: number; slot: number; tries: number }[] = [];
          list.forEach((s, i) => {
            now += s.gapMs;
            const r = reserve(bucket, limits, s.segments, now, 1000 * HOUR);
            if (r.kind !== 'reserved') throw new Error('unexpected too_late');
            bucket = r.bucket;
            runs.push({ at: r.slotMs + s.lags[0]!, i, slot: r.slotMs, tries: 0 });
          });
          const departures: { at: number; segments: number }[] = [];
          while (runs.length > 0) {
            runs.sort((a, b) => a.at - b.at);
            const run = runs.shift()!;
            const s = list[run.i]!;
            const d = depart(bucket, limits, s.segments, run.slot, run.at);
            if (d.kind === 'go') {
              expect(d.atMs).toBeGreaterThanOrEqual(run.slot);
              expect(d.atMs - run.at).toBeLessThanOrEqual(MAX_HOLD_MS);
              bucket = d.bucket;
              departures.push({ at: d.atMs, segments: s.segments });
              continue;
            }
            const r = reserve(giveBack(bucket, s.segments, run.slot), limits, s.segments, run.at, 1000 * HOUR);
            if (r.kind !== 'reserved') throw new Error('unexpected too_late');
            bucket = r.bucket;
            expect(r.slotMs).toBeGreaterThan(run.at);
            const tries = run.tries + 1;
            // Lags run out: from then on the worker is on time, and an on-time send always leaves.
            runs.push({ at: r.slotMs + (s.lags[tries] ?? 0), i: run.i, slot: r.slotMs, tries });
          }
          expect(departures).toHaveLength(list.length);
          for (const start of departures) {
            const inWindow = departures
              .filter((x) => x.at >= start.at && x.at < start.at + windowMs)
              .reduce((n, x) => n + x.segments, 0);
            expect(inWindow).toBeLessThanOrEqual((rate * windowMs) / 1000 + 3 + 1e-6);
          }
        },
      ),
    );
  });

  it('property: with a daily cap, no UTC day ever gets more than the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 60 }),
        (cap, list) => {
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
        },
      ),
    );
  });
});
