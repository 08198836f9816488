import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSearch, searchLeads } from '../../src/leads/lead-search.service.js';
import type { SearchTerm } from '../../src/leads/lead-search.repository.js';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import type { Deps } from '../../src/platform/deps.js';
import { newId } from '../../src/platform/ids.js';
import { dialects, freshDatabase } from '../support/harness.js';

/**
 * GET /v1/leads with `search`, `aiOn` and either order against a model: any
 * small set of leads with names drawn from a few characters (ASCII of both
 * cases, space, the LIKE characters % and _, a two-byte é), activity times
 * drawn from a few values (ties and leads without activity are the rule), any
 * page size, through both ways of searching (the union of index ranges and
 * the ordered scan). Walking the pages gives exactly the model's leads, in
 * order, once each.
 */
const RUNS = Number(process.env.SEARCH_RUNS ?? 60);
const SEED = Number(process.env.SEARCH_SEED ?? 20261123);

// Few characters and short strings: names that equal a search, or its end of range, come up often.
const text = (max: number) =>
  fc.array(fc.constantFrom('a', 'A', 'b', 'B', ' ', '%', '_', 'é'), { maxLength: max }).map((cs) => cs.join(''));
const few = (max: number) =>
  fc.array(fc.constantFrom('a', 'B', 'b', 'é', ' '), { maxLength: max }).map((cs) => cs.join(''));
const TIMES = [null, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.001Z', '2026-02-01T00:00:00.000Z'];
const lead = fc.record({
  first: fc.oneof(few(2), text(3)).filter((s) => s.length > 0),
  last: fc.oneof(few(2), text(3)),
  email: fc.option(
    text(3).map((s) => `${s.toLowerCase()}@x.io`),
    { nil: null },
  ),
  external: fc.option(text(3), { nil: null }),
  activity: fc.constantFrom(...TIMES),
  aiOn: fc.boolean(),
});
const scenario = fc.record({
  leads: fc.array(lead, { maxLength: 16 }),
  search: fc.option(
    fc.oneof(few(1), few(3), text(3)).filter((s) => s.trim() !== ''),
    { nil: undefined },
  ),
  aiOn: fc.option(fc.boolean(), { nil: undefined }),
  sort: fc.constantFrom('created' as const, 'lastActivity' as const),
  limit: fc.integer({ min: 1, max: 5 }),
  denseAbove: fc.constantFrom(0, 1000),
});

type Lead = {
  id: string;
  first: string;
  last: string;
  email: string | null;
  external: string | null;
  activity: string | null;
  aiOn: boolean;
};

/** What each alternative of the term means, in JavaScript (the names hold ASCII letters only where case matters). */
function modelMatches(term: SearchTerm, l: Lead): boolean {
  const first = l.first.toLowerCase();
  const last = l.last.toLowerCase();
  if (term.phonePrefixes.length > 0) throw new Error('the model has no phones');
  if (term.emailPrefix !== undefined && l.email !== null && l.email.startsWith(term.emailPrefix)) return true;
  if (term.names.some((n) => first.startsWith(n.first) && (n.last === undefined || last.startsWith(n.last))))
    return true;
  if (term.lastNamePrefix !== undefined && last.startsWith(term.lastNamePrefix)) return true;
  return term.externalLeadId !== undefined && l.external === term.externalLeadId;
}

let orgCounter = 0;

for (const dialect of dialects()) {
  describe(`GET /v1/leads search and orders against a model (${dialect})`, () => {
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

    it('walks exactly the matching leads, in the order asked, once each, in pages of the limit', async () => {
      await fc.assert(
        fc.asyncProperty(scenario, async ({ leads, search, aiOn, sort, limit, denseAbove }) => {
          orgCounter += 1;
          const org = `search-${orgCounter}-${Math.random().toString(36).slice(2, 8)}`;
          const db = store.db;
          await db
            .insertInto('organizations')
            .values({ id: org, name: org, settings: '{}', created_at: '2026-01-01T00:00:00.000Z' })
            .execute();
          const rows: Lead[] = leads.map((l) => ({ ...l, id: newId() }));
          for (const r of rows) {
            await db
              .insertInto('leads')
              .values({
                organization_id: org,
                id: r.id,
                first_name: r.first,
                last_name: r.last,
                email: r.email,
                external_lead_id: r.external,
                phone: null,
                customer_profile: 'default',
                additional_info: '{}',
                has_replied: 0,
                is_hot: 0,
                is_qualified: 0,
                is_ai_on: r.aiOn ? 1 : 0,
                sms_status: 'subscribed',
                voice_status: 'subscribed',
                email_status: 'subscribed',
                created_at: '2026-01-01T00:00:00.000Z',
                updated_at: '2026-01-01T00:00:00.000Z',
                last_activity_at: r.activity,
              } as never)
              .execute();
          }
          const term = search === undefined ? undefined : readSearch(search, 'US');
          const expected = rows
            .filter((r) => (term === undefined || modelMatches(term, r)) && (aiOn === undefined || r.aiOn === aiOn))
            .sort((a, b) => {
              if (sort === 'created') return a.id < b.id ? -1 : 1;
              const [x, y] = [a.activity ?? '', b.activity ?? ''];
              return x === y ? (a.id < b.id ? 1 : -1) : x < y ? 1 : -1;
            })
            .map((r) => r.id);

          const deps = { db, config: { defaultCountry: 'US' } } as unknown as Deps;
          const seen: string[] = [];
          let nextToken: string | undefined;
          for (let pages = 1; pages <= 40; pages++) {
            const page = await searchLeads(deps, org, { search, aiOn, sort, limit, nextToken }, { denseAbove });
            expect(page.leads.length).toBeLessThanOrEqual(limit);
            if (page.nextToken) expect(page.leads.length).toBe(limit);
            seen.push(...page.leads.map((l) => l.id));
            if (!page.nextToken) break;
            nextToken = page.nextToken;
          }
          expect(seen).toEqual(expected);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    }, 180_000);
  });
}
