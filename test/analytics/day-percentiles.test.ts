import { describe, expect, it } from 'vitest';
import { latencyPercentiles } from '../../src/analytics/analytics.repository.js';
import { addPending, foldPending } from '../../src/analytics-records/pending.repository.js';
import { dialects } from '../support/harness.js';
import { storeForBlock } from '../support/store.js';

/**
 * A report by day remembers each day's percentiles until a fold changes that
 * day (analytics/day-percentiles.repository.ts): a remembered day is read,
 * not recomputed, and a fold that adds to a day makes the next report
 * compute it again, while the other days stay remembered.
 */

const D0 = '2026-06-28';
const D1 = '2026-06-29';
const D2 = '2026-06-30';

for (const dialect of dialects()) {
  describe(`remembered speed to lead by day (${dialect})`, () => {
    const storeOf = storeForBlock(dialect);

    const org = 'org-days';
    /** `n` first sends of `ms` on `day`, counted through the queue and folded, as the recorder does. */
    async function sends(day: string, ms: number, n: number) {
      await addPending(storeOf().db, org, [
        {
          target: 'analytics_latency',
          cells: [{ organization_id: org, dim: 'day', period: day, value: '', kind: 'sent', bucket: ms }],
          counter: 'count',
          amount: n,
        },
      ]);
      await foldPending(storeOf().db);
    }
    const byDay = async () =>
      Object.fromEntries(
        (await latencyPercentiles(storeOf().db, org, 'day', 'period', [{ from: D0, to: D2 }])).map((r) => [
          r.key,
          [r.count, r.p50],
        ]),
      );

    it('reads a remembered day until a fold changes it, and only that day', async () => {
      await sends(D1, 10, 3);
      await sends(D2, 20, 3);
      expect(await byDay()).toEqual({ [D1]: [3, 10], [D2]: [3, 20] });
      // D0 had no first send: kept as a quiet day (count 0), so the next report does not look at it again.
      const kept = await storeOf()
        .db.selectFrom('analytics_day_percentiles')
        .select(['period', 'count', 'p50'])
        .execute();
      expect(kept.map((r) => [r.period, Number(r.count), r.p50 === null ? null : Number(r.p50)]).sort()).toEqual([
        [D0, 0, null],
        [D1, 3, 10],
        [D2, 3, 20],
      ]);

      // Written behind the fold's back (no new version): the report still answers what it remembered.
      await storeOf()
        .db.insertInto('analytics_latency')
        .values({ organization_id: org, dim: 'day', period: D1, value: '', kind: 'sent', bucket: 90, count: 100 })
        .execute();
      expect(await byDay()).toEqual({ [D1]: [3, 10], [D2]: [3, 20] });

      // A fold that adds to D2 makes D2 computed again (it now sees 5 of 50 ms); D1 stays remembered.
      await sends(D2, 50, 5);
      expect(await byDay()).toEqual({ [D1]: [3, 10], [D2]: [8, 50] });

      // And one that adds to D1: computed from every row of the day, the one written behind its back included.
      await sends(D1, 10, 1);
      expect(await byDay()).toEqual({ [D1]: [104, 90], [D2]: [8, 50] });

      // The quiet day's first send gives it a version: it is computed and reported.
      await sends(D0, 5, 2);
      expect(await byDay()).toEqual({ [D0]: [2, 5], [D1]: [104, 90], [D2]: [8, 50] });
    });
  });
}
