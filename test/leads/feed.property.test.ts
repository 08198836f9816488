import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listLeads } from '../../src/leads/leads.service.js';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import type { Deps } from '../../src/platform/deps.js';
import { dialects, freshDatabase } from '../support/harness.js';

/**
 * The change feed of GET /v1/leads against a model: any set of leads and
 * erased leads, with timestamps drawn from a few values (so ties are the
 * rule), any filters and any page size. Walking the pages with nextToken
 * gives exactly the model's list: filtered, ordered by (timestamp, id), each
 * once, erased ones as removals; no page over the limit, no empty page
 * before the end.
 */
const RUNS = Number(process.env.FEED_RUNS ?? 40);
const SEED = Number(process.env.FEED_SEED ?? 20261123);

const TIMES = [
  '2026-01-01T00:00:00.000Z',
  '2026-01-01T00:00:00.001Z',
  '2026-01-02T00:00:00.000Z',
  '2026-03-01T12:00:00.000Z',
];
const time = fc.constantFrom(...TIMES);
const entry = fc.record({ created: time, updated: time, deleted: fc.boolean() });
const scenario = fc
  .record({
    entries: fc.array(entry, { maxLength: 24 }),
    createdSince: fc.option(time, { nil: undefined }),
    updatedSince: fc.option(time, { nil: undefined }),
    limit: fc.integer({ min: 1, max: 8 }),
  })
  .filter((s) => s.createdSince !== undefined || s.updatedSince !== undefined);

let orgCounter = 0;

for (const dialect of dialects()) {
  describe(`GET /v1/leads change feed against a model (${dialect})`, () => {
    let store: Store;
    let drop: () => Promise<void>;
    beforeAll(async () => {
      const fresh = await freshDatabase(dialect);
      drop = fresh.drop;
      store = openStore(fresh.url);
      await migrateToLatest(store);
    });
    afterAll(async () => {
      await store.close();
      await drop();
    });

    it('walks exactly the filtered, (timestamp, id)-ordered leads and removals, once each, in pages of the limit', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async ({ entries, createdSince, updatedSince, limit }) => {
          orgCounter += 1;
          const org = `feed-${orgCounter}-${Math.random().toString(36).slice(2, 8)}`;
          const db = store.db;
          await db
            .insertInto('organizations')
            .values({ id: org, name: org, settings: '{}', created_at: TIMES[0]! })
            .execute();
          const rows = entries.map((e, i) => ({
            ...e,
            id: `00000000-0000-7000-8000-${(orgCounter * 1000 + ((i * 7919) % 1000)).toString(16).padStart(12, '0')}`,
          }));
          for (const r of rows) {
            if (r.deleted) {
              // An erased lead: its erasure comes at or after its creation.
              const deletedAt = r.updated < r.created ? r.created : r.updated;
              await db
                .insertInto('deleted_leads')
                .values({ organization_id: org, id: r.id, created_at: r.created, deleted_at: deletedAt })
                .execute();
              r.updated = deletedAt;
            } else {
              await db
                .insertInto('leads')
                .values({
                  organization_id: org,
                  id: r.id,
                  customer_profile: 'default',
                  additional_info: '{}',
                  has_replied: 0,
                  is_hot: 0,
                  is_qualified: 0,
                  is_ai_on: 1,
                  sms_status: 'subscribed',
                  voice_status: 'subscribed',
                  email_status: 'subscribed',
                  created_at: r.created,
                  updated_at: r.updated,
                } as never)
                .execute();
            }
          }
          const order = updatedSince ? 'updated' : 'created';
          const expected = rows
            .filter((r) => (!createdSince || r.created >= createdSince) && (!updatedSince || r.updated >= updatedSince))
            .map((r) => ({ id: r.id, deleted: r.deleted, at: order === 'updated' ? r.updated : r.created }))
            .sort((a, b) => (a.at === b.at ? (a.id < b.id ? -1 : 1) : a.at < b.at ? -1 : 1))
            .map(({ id, deleted }) => ({ id, deleted }));

          const deps = { db } as unknown as Deps;
          const seen: { id: string; deleted: boolean }[] = [];
          let page = await listLeads(deps, org, { createdSince, updatedSince, limit });
          for (let pages = 1; ; pages++) {
            expect(page.leads.length).toBeLessThanOrEqual(limit);
            if (page.nextToken) expect(page.leads.length).toBe(limit);
            seen.push(...page.leads.map((l) => ({ id: l.id, deleted: l.deleted })));
            if (!page.nextToken || pages > 50) break;
            page = await listLeads(deps, org, { limit, nextToken: page.nextToken });
          }
          expect(seen).toEqual(expected);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }, 120_000);
  });
}
