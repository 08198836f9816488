import { describe, expect, it } from 'vitest';
import { sumCounters } from '../../src/analytics/analytics.repository.js';
import { foldOrganization, foldPending } from '../../src/analytics-records/pending.repository.js';
import { noteLeadsCreated } from '../../src/analytics-records/recorder.repository.js';
import { dialects } from '../support/harness.js';
import { storeForBlock } from '../support/store.js';

/**
 * Analytics counts are queued (analytics-records/pending.repository.ts) and folded
 * into the rollups by the worker and before each report. What must hold:
 * a count locks no row another count of the organization needs (the reason
 * for the queue), and counts written while any number of folds run are each
 * added once.
 */

let leads = 0;
const lead = (day: string) => ({
  id: `lead-${++leads}`,
  customer_profile: 'default',
  created_at: `${day}T12:00:00.000Z`,
});

const DAYS = ['2026-06-29', '2026-06-30', '2026-07-01'];

function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

for (const dialect of dialects()) {
  describe(`queued analytics counts (${dialect})`, () => {
    const storeOf = storeForBlock(dialect);

    // Row locks are PostgreSQL's: SQLite has one writer at a time, whatever the rows.
    it.runIf(dialect === 'postgres')(
      'a lead counted in an open transaction does not hold up another lead of the organization',
      async () => {
        const org = 'org-locks';
        let other: Promise<void> | undefined;
        await storeOf()
          .db.transaction()
          .execute(async (trx) => {
            await noteLeadsCreated(trx, org, [lead(DAYS[0]!)], 'api');
            // Same day, profile and source: the same rollup cells. Before the queue, this waited for the commit below.
            other = noteLeadsCreated(storeOf().db, org, [lead(DAYS[0]!)], 'api');
            await withDeadline(other, 5_000, 'the second count');
          });
        await foldOrganization(storeOf().db, org);
        const [day] = await sumCounters(storeOf().db, org, 'day', { from: DAYS[0]!, to: DAYS[0]! });
        expect(day?.leads).toBe(2);
      },
    );

    it('counts written while several folds run are each added once', async () => {
      const org = 'org-folds';
      const writers = Array.from({ length: 40 }, (_, i) =>
        noteLeadsCreated(
          storeOf().db,
          org,
          Array.from({ length: 1 + (i % 3) }, () => lead(DAYS[i % DAYS.length]!)),
          i % 2 ? 'api' : 'inbound',
        ),
      );
      const folds = Array.from({ length: 4 }, async () => {
        let folded = 0;
        for (let round = 0; round < 5; round += 1) folded += await foldPending(storeOf().db);
        return folded;
      });
      const [, folded] = await Promise.all([Promise.all(writers), Promise.all(folds)]);
      // The report's own fold: whatever the workers' folds left, and their rows already added.
      const last = await foldOrganization(storeOf().db, org);
      const days = await sumCounters(storeOf().db, org, 'day', { from: DAYS[0]!, to: DAYS[2]! });
      const expected = DAYS.map((_, d) =>
        Array.from({ length: 40 }, (_, i) => i)
          .filter((i) => i % DAYS.length === d)
          .reduce((n, i) => n + 1 + (i % 3), 0),
      );
      expect(days.map((r) => [r.key, r.leads])).toEqual(DAYS.map((day, d) => [day, expected[d]]));
      // Each writer queued one row (its leads share a day); each row was folded by exactly one fold.
      expect(folded.reduce((a, b) => a + b, 0) + last).toBe(40);
      const left = await storeOf().db.selectFrom('analytics_pending').select('id').execute();
      expect(left).toEqual([]);
    });

    it("a report's fold adds what was committed before it, for its organization only", async () => {
      await noteLeadsCreated(storeOf().db, 'org-a', [lead(DAYS[1]!), lead(DAYS[1]!)], 'api');
      await noteLeadsCreated(storeOf().db, 'org-b', [lead(DAYS[1]!)], 'api');
      expect(await foldOrganization(storeOf().db, 'org-a')).toBe(1);
      const [a] = await sumCounters(storeOf().db, 'org-a', 'day', { from: DAYS[1]!, to: DAYS[1]! });
      expect(a?.leads).toBe(2);
      expect(await sumCounters(storeOf().db, 'org-b', 'day', { from: DAYS[1]!, to: DAYS[1]! })).toEqual([]);
      expect(await foldOrganization(storeOf().db, 'org-b')).toBe(1);
      expect(await foldOrganization(storeOf().db, 'org-b')).toBe(0);
    });
  });
}
