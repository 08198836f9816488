import { Migrator, sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { foldPending } from '../../src/analytics-records/pending.repository.js';
import { sumCounters } from '../../src/analytics/analytics.repository.js';
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
  describe(`migration 0049_analytics_variants_quarters (${dialect})`, () => {
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

  describe(`migration 0049_analytics_variants_quarters, quarter rows (${dialect})`, () => {
    const store = storeForBlock(dialect, { migrated: false });
    const db = () => store().db as unknown as Kysely<any>;

    it("adds each quarter's months up into a quarter row of every rollup, and leaves the days and months", async () => {
      await migrateWith(db(), migrationsUntil('0045_event_lead'));
      const rollup = (period: string, value: string, leads: number, failed: number) => ({
        organization_id: 'o1',
        dim: 'campaign',
        period,
        value,
        leads,
        failed,
      });
      await db()
        .insertInto('analytics_rollups')
        .values([
          rollup('2026-04', 'c1', 1, 0),
          rollup('2026-05', 'c1', 2, 1),
          rollup('2026-06', 'c1', 4, 0),
          rollup('2026-07', 'c1', 8, 2),
          rollup('2026-07-03', 'c1', 8, 2),
          rollup('2026-05', 'c2', 16, 0),
        ])
        .execute();
      const latency = (period: string, bucket: number, count: number) => ({
        organization_id: 'o1',
        dim: 'day',
        period,
        value: '',
        kind: 'sent',
        bucket,
        count,
      });
      await db()
        .insertInto('analytics_latency')
        .values([
          latency('2026-01', 100, 1),
          latency('2026-03', 100, 2),
          latency('2026-03', 105, 4),
          latency('2026-03-02', 105, 4),
        ])
        .execute();
      await db()
        .insertInto('analytics_numbers')
        .values([
          { organization_id: 'o1', period: '2026-10', sending_number_id: 'n1', sent: 3, delivered: 2, failed: 1 },
          { organization_id: 'o1', period: '2026-12', sending_number_id: 'n1', sent: 5, delivered: 5, failed: 0 },
        ])
        .execute();
      await db()
        .insertInto('analytics_errors')
        .values([
          {
            organization_id: 'o1',
            period: '2026-10',
            sending_number_id: 'n1',
            code: '30007',
            class: 'filtered',
            count: 1,
          },
          { organization_id: 'o1', period: '2026-11', sending_number_id: 'n1', code: '30007', class: null, count: 2 },
        ])
        .execute();
      await migrateWith(db(), migrations);
      const quarters = async (table: string, columns: string[]) =>
        (
          await db()
            .selectFrom(table)
            .select(columns)
            .where(sql<boolean>`substr(period, 6, 1) = 'Q'`)
            .orderBy(columns.slice(0, 3))
            .execute()
        ).map((r) =>
          Object.fromEntries(
            Object.entries(r).map(([k, v]) => [
              k,
              typeof v === 'string' && k !== 'period' && !Number.isNaN(Number(v)) && k !== 'value' && k !== 'code'
                ? Number(v)
                : v,
            ]),
          ),
        );
      expect(await quarters('analytics_rollups', ['period', 'value', 'leads', 'failed'])).toEqual([
        { period: '2026-Q2', value: 'c1', leads: 7, failed: 1 },
        { period: '2026-Q2', value: 'c2', leads: 16, failed: 0 },
        { period: '2026-Q3', value: 'c1', leads: 8, failed: 2 },
      ]);
      expect(await quarters('analytics_latency', ['period', 'bucket', 'count'])).toEqual([
        { period: '2026-Q1', bucket: 100, count: 3 },
        { period: '2026-Q1', bucket: 105, count: 4 },
      ]);
      expect(
        await quarters('analytics_numbers', ['period', 'sending_number_id', 'sent', 'delivered', 'failed']),
      ).toEqual([{ period: '2026-Q4', sending_number_id: 'n1', sent: 8, delivered: 7, failed: 1 }]);
      expect(await quarters('analytics_errors', ['period', 'sending_number_id', 'code', 'class', 'count'])).toEqual([
        { period: '2026-Q4', sending_number_id: 'n1', code: '30007', class: 'filtered', count: 3 },
      ]);
      // The rows it read are left as they were.
      expect(
        Number((await db().selectFrom('analytics_rollups').select(sql`count(*)`.as('n')).executeTakeFirstOrThrow()).n),
      ).toBe(9);
    });
  });

  describe(`migration 0049_analytics_variants_quarters, counts still queued (${dialect})`, () => {
    const store = storeForBlock(dialect, { migrated: false });
    const db = () => store().db as unknown as Kysely<any>;
    const cell = (period: string, value: string) => ({ organization_id: 'o1', dim: 'campaign', period, value });
    const byQuarter = async () =>
      (await sumCounters(store().db, 'o1', 'campaign', { months: ['2026-Q2'] })).map((r) => [r.key, r.leads]);
    const byMonths = async () =>
      (await sumCounters(store().db, 'o1', 'campaign', { months: ['2026-04', '2026-05', '2026-06'] })).map((r) => [
        r.key,
        r.leads,
      ]);

    it('folds a count the older recorder queued (a day and a month) into its quarter row too', async () => {
      await migrateWith(db(), migrationsUntil('0045_event_lead'));
      await db()
        .insertInto('analytics_rollups')
        .values([
          { ...cell('2026-04', 'c1'), leads: 1 },
          { ...cell('2026-04-02', 'c1'), leads: 1 },
        ])
        .execute();
      // As the recorder before 0049 queued a lead: its day and its month, no quarter.
      await db()
        .insertInto('analytics_pending')
        .values({
          organization_id: 'o1',
          target: 'analytics_rollups',
          cells: JSON.stringify([cell('2026-05-20', 'c1'), cell('2026-05', 'c1')]),
          counter: 'leads',
          amount: 2,
        })
        .execute();
      await migrateWith(db(), migrations);
      expect(await foldPending(store().db)).toBe(1);
      expect(await byQuarter()).toEqual([['c1', 3]]);
      expect(await byMonths()).toEqual([['c1', 3]]);
    });

    it('goes down to what the older fold reads, and up again without counting a quarter twice', async () => {
      await db()
        .insertInto('analytics_pending')
        .values([
          {
            organization_id: 'o1',
            target: 'analytics_rollups',
            cells: JSON.stringify([cell('2026-06-01', 'c1'), cell('2026-06', 'c1'), cell('2026-Q2', 'c1')]),
            counter: 'leads',
            amount: 4,
          },
          {
            organization_id: 'o1',
            target: 'analytics_variants',
            cells: JSON.stringify([{ organization_id: 'o1', profile: 'p', variant: 'v' }]),
            counter: 'sent',
            amount: 1,
          },
        ])
        .execute();
      const migrator = new Migrator({ db: db(), provider: { getMigrations: async () => migrations } });
      const down = await migrator.migrateDown();
      expect(down.error).toBeUndefined();
      const left = await db().selectFrom('analytics_pending').select(['target', 'cells']).execute();
      expect(left.map((r) => [r.target, JSON.parse(r.cells)])).toEqual([
        ['analytics_rollups', [cell('2026-06-01', 'c1'), cell('2026-06', 'c1')]],
      ]);
      expect(
        await db().selectFrom('analytics_rollups').select('period').where('period', '=', '2026-Q2').execute(),
      ).toEqual([]);
      await migrateWith(db(), migrations);
      await foldPending(store().db);
      expect(await byQuarter()).toEqual([['c1', 7]]);
      expect(await byMonths()).toEqual([['c1', 7]]);
    });
  });
}
