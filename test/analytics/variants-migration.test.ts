import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/platform/db/migrate.js';
import { dialects } from '../support/harness.js';
import { migrateWith, migrationsUntil } from '../support/migrations.js';
import { storeForBlock } from '../support/store.js';

/**
 * 0049: the openings report reads a rollup per profile and variant; the leads that already had a variant
 * are added up into it from analytics_leads (what the report counted before), so the report answers the
 * same after the upgrade. A lead sent no variant counts nowhere.
 */
for (const dialect of dialects()) {
  describe(`migration 0049_analytics_variants (${dialect})`, () => {
    const store = storeForBlock(dialect, { migrated: false });
    const db = () => store().db as unknown as Kysely<any>;

    it('adds up the leads sent each variant, and their outcomes, per organization and profile', async () => {
      await migrateWith(db(), migrationsUntil('0045_event_lead'));
      const at = '2026-07-01T10:00:00.000Z';
      let n = 0;
      const lead = (org: string, profile: string | null, variant: string | null, facts: string[] = []) => ({
        organization_id: org,
        lead_id: `l${++n}`,
        created_at: at,
        profile: profile ?? 'p',
        source: 'api',
        variant_profile: profile,
        variant,
        ...Object.fromEntries(facts.map((f) => [f, at])),
      });
      await db()
        .insertInto('analytics_leads')
        .values([
          lead('o1', 'buyers', 'warm', ['replied_at', 'booked_at']),
          lead('o1', 'buyers', 'warm', ['replied_at', 'hot_at']),
          lead('o1', 'buyers', 'warm'),
          lead('o1', 'buyers', 'short', ['qualified_at', 'opted_out_at']),
          lead('o1', 'sellers', 'warm', ['replied_at']),
          lead('o2', 'buyers', 'warm', ['opted_out_at']),
          lead('o1', null, null, ['replied_at']),
        ])
        .execute();
      await migrateWith(db(), migrations);
      const rows = await db()
        .selectFrom('analytics_variants')
        .selectAll()
        .orderBy('organization_id')
        .orderBy('profile')
        .orderBy('variant')
        .execute();
      const row = (organization_id: string, profile: string, variant: string, counts: number[]) => {
        const [sent, replied, qualified, booked, opted_out] = counts;
        return { organization_id, profile, variant, sent, replied, qualified, booked, opted_out };
      };
      expect(
        rows.map((r) => ({
          ...r,
          ...Object.fromEntries(['sent', 'replied', 'qualified', 'booked', 'opted_out'].map((k) => [k, Number(r[k])])),
        })),
      ).toEqual([
        row('o1', 'buyers', 'short', [1, 0, 1, 0, 1]),
        row('o1', 'buyers', 'warm', [3, 2, 0, 1, 0]),
        row('o1', 'sellers', 'warm', [1, 1, 0, 0, 0]),
        row('o2', 'buyers', 'warm', [1, 0, 0, 0, 1]),
      ]);
    });
  });
}
