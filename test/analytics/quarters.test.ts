import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { coverage, foldQuarters } from '../../src/analytics/analytics.service.js';
import { quarterOf } from '../../src/analytics-records/recorder.repository.js';

/**
 * A report reads a whole calendar quarter from its quarter rows, which the recorder writes beside the month
 * rows (the sum of the quarter's three months): folding a range's whole months into quarters must cover
 * exactly the same months, and fold only quarters the range covers whole.
 */
const months = (periods: readonly string[]) =>
  periods.flatMap((p) =>
    p[5] === 'Q'
      ? [0, 1, 2].map((i) => `${p.slice(0, 4)}-${String((Number(p[6]) - 1) * 3 + 1 + i).padStart(2, '0')}`)
      : [p],
  );

describe('analytics: whole quarters of a range', () => {
  it('folds the quarters a range covers whole, and only those', () => {
    expect(foldQuarters(['2026-03', '2026-04', '2026-05', '2026-06', '2026-07'])).toEqual([
      '2026-03',
      '2026-Q2',
      '2026-07',
    ]);
    expect(foldQuarters(['2025-12', '2026-01', '2026-02', '2026-03', '2026-04', '2026-05'])).toEqual([
      '2025-12',
      '2026-Q1',
      '2026-04',
      '2026-05',
    ]);
    expect(foldQuarters(coverage('2026-01-01', '2026-12-31').months)).toEqual([
      '2026-Q1',
      '2026-Q2',
      '2026-Q3',
      '2026-Q4',
    ]);
    expect(['2026-01-31', '2026-03-01', '2026-04-15', '2026-09-30', '2026-12-01'].map(quarterOf)).toEqual([
      '2026-Q1',
      '2026-Q1',
      '2026-Q2',
      '2026-Q3',
      '2026-Q4',
    ]);
  });

  it('covers the same months as the range, for any range of up to a year', () => {
    const day = fc.integer({ min: 0, max: 3 * 366 }).map((n) => new Date(Date.UTC(2025, 0, 1) + n * 86_400_000));
    fc.assert(
      fc.property(day, fc.integer({ min: 0, max: 365 }), (start, length) => {
        const from = start.toISOString().slice(0, 10);
        const to = new Date(start.getTime() + length * 86_400_000).toISOString().slice(0, 10);
        const whole = coverage(from, to).months;
        const folded = foldQuarters(whole);
        expect(months(folded)).toEqual(whole);
        for (const p of folded) if (p[5] === 'Q') expect(months([p]).every((m) => whole.includes(m))).toBe(true);
      }),
      { numRuns: 500, seed: 20261127 },
    );
  });
});
