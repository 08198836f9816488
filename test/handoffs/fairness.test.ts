import fc from 'fast-check';
import { expect, it } from 'vitest';
import { createLead, describeEachDialect } from '../support/harness.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { freshOrganization, makeRep } from './support.js';

/**
 * Round-robin is fair under concurrency: N hand-offs raised at once over K
 * reps leave every rep within one hand-off of every other. The choice is
 * serialised per organization (an advisory lock on PostgreSQL, the write lock
 * on SQLite); without it concurrent hand-offs read the same counts and pile
 * onto the same rep.
 */
describeEachDialect('round-robin fairness', (ctx) => {
  startEachTestInDaytime(ctx);

  it('N concurrent hand-offs over K reps differ by at most one', async () => {
    const ts = ctx();
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 14 }), async (k, n) => {
        const org = await freshOrganization(ts, 'fair');
        const reps = await Promise.all(Array.from({ length: k }, () => makeRep(ts, org)));
        const pool = reps.map((r) => r.userId);
        expect(
          (await org.client.patch('/settings', { assignment: { mode: 'roundRobin', pool, ackWithinMinutes: 1440 } }))
            .status,
        ).toBe(200);
        const leads = await Promise.all(Array.from({ length: n }, () => createLead(org.client)));
        const raised = await Promise.all(
          leads.map((id) => org.client.post(`/leads/${id}/handoff`, { reason: 'concurrent' })),
        );
        expect(raised.map((r) => r.status)).toEqual(leads.map(() => 200));
        const counts = new Map(pool.map((id) => [id, 0]));
        for (const r of raised) counts.set(r.body.ownerId!, (counts.get(r.body.ownerId!) ?? 0) + 1);
        expect([...counts.keys()].sort()).toEqual([...pool].sort());
        const values = [...counts.values()];
        expect(Math.max(...values) - Math.min(...values)).toBeLessThanOrEqual(1);
        // What GET /v1/handoffs reports per owner agrees.
        const byOwner = (await org.client.get('/handoffs')).body.stats.byOwner as { ownerId: string; count: number }[];
        expect(Object.fromEntries(byOwner.map((o) => [o.ownerId, o.count]))).toEqual(
          Object.fromEntries([...counts].filter(([, c]) => c > 0)),
        );
      }),
      { numRuns: 8 },
    );
  }, 120_000);
});
