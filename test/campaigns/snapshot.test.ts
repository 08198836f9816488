import fc from 'fast-check';
import { expect, it } from 'vitest';
import { snapshotPage } from '../../src/campaigns/campaigns.repository.js';
import { newId } from '../../src/platform/ids.js';
import { describeEachDialect } from '../support/harness.js';
import { freshOrg } from './helpers.js';

type Info = Record<string, string | number | boolean>;

/** What the filter's additionalInfo means (docs/campaigns.md), in JavaScript: the lead's own key, the same JSON type and value. */
const infoMatches = (info: Info, wanted: Info) =>
  Object.entries(wanted).every(([k, v]) => Object.prototype.hasOwnProperty.call(info, k) && info[k] === v);

// Keys a JSON path would misread, values a loose comparison would confuse (1 and "1" and true).
const key = fc.constantFrom('a', 'b', 'A', 'a.b', '$', '$.a', '"q"', "it's", 'ü', ' ', '[0]', 'x y', 'constructor');
const scalar = fc.oneof(
  fc.constantFrom('', '1', 'true', '1.5', 'ü', 'a"b', "it's", '\\', 'A'),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(1.5, -0.25, 1e21),
  fc.boolean(),
);
const info = fc.dictionary(key, scalar, { maxKeys: 4 }) as fc.Arbitrary<Info>;

/** Half the time the wanted keys are taken from one of the leads (a likely match), sometimes with the value's type changed. */
const wantedFor = (infos: Info[]) =>
  fc.oneof(
    fc.dictionary(key, scalar, { minKeys: 1, maxKeys: 2 }) as fc.Arbitrary<Info>,
    fc.tuple(fc.constantFrom(...infos), fc.boolean()).map(([from, retype]) => {
      const picked: Info = Object.fromEntries(Object.entries(from).slice(0, 2));
      // The same value as another JSON type: true as 1, 1 as true, 3 as "3", "3" as 3.
      const other = (v: string | number | boolean) =>
        typeof v === 'boolean'
          ? v
            ? 1
            : 0
          : typeof v === 'number'
            ? v === 1
              ? true
              : v === 0
                ? false
                : String(v)
            : Number(v) || true;
      if (retype) for (const k of Object.keys(picked)) picked[k] = other(picked[k]!);
      return Object.keys(picked).length > 0 ? picked : { a: 1 };
    }),
  );

describeEachDialect('campaigns: the snapshot filter in SQL', (ctx) => {
  it('selects exactly the leads whose additionalInfo holds every wanted key with the same JSON type and value', async () => {
    const ts = ctx();
    const { org } = await freshOrg(ts, 'info');
    const db = ts.server.store.db;
    await fc.assert(
      fc.asyncProperty(
        fc.array(info, { minLength: 1, maxLength: 8 }).chain((infos) => fc.tuple(fc.constant(infos), wantedFor(infos))),
        async ([infos, wanted]) => {
          // Each run's leads on a profile of their own: the filter selects among them only.
          const profile = `p-${newId()}`;
          const at = new Date().toISOString();
          const rows = infos.map((i) => ({
            organization_id: org,
            id: newId(),
            first_name: 'Ann',
            last_name: null,
            phone: null,
            email: `${newId()}@example.com`,
            customer_profile: profile,
            time_zone: null,
            external_lead_id: null,
            additional_info: JSON.stringify(i),
            summary: null,
            has_replied: 0 as const,
            is_hot: 0 as const,
            is_qualified: 0 as const,
            is_ai_on: 1 as const,
            sms_status: 'subscribed' as const,
            voice_status: 'subscribed' as const,
            email_status: 'subscribed' as const,
            sms_opt_out_source: null,
            voice_opt_out_source: null,
            email_opt_out_source: null,
            memory_cleared_at: null,
            created_at: at,
            updated_at: at,
            last_activity_at: null,
          }));
          await db.insertInto('leads').values(rows).execute();
          const got = await snapshotPage(
            db,
            org,
            { customerProfile: profile, additionalInfo: wanted },
            new Date(Date.now() + 60_000).toISOString(),
            undefined,
            100,
          );
          const expected = rows.filter((_, n) => infoMatches(infos[n]!, wanted)).map((r) => r.id);
          expect(got.map((r) => r.id).sort(), JSON.stringify({ infos, wanted })).toEqual(expected.sort());
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 60) },
    );
  }, 120_000);
});
