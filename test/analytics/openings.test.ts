import { afterAll, beforeEach, expect, it } from 'vitest';
import { apart, wilson } from '../../src/analytics/wilson.js';
import { pickVariant } from '../../src/profiles/variants.js';
import { expectError } from '../support/assert.js';
import { DAYTIME } from '../support/clock-hours.js';
import { createLead, describeEachDialect, uniquePhone } from '../support/harness.js';
import { envFor, messagesOf, organization, startFakeTwilio } from './support.js';

const fake = await startFakeTwilio('ACanalytics', 'analytics-secret');
afterAll(() => fake.close());

const VARIANTS = [
  { name: 'warm', text: 'Hi {{firstName}}, still looking for a home?', weight: 3 },
  { name: 'short', text: 'Hi {{firstName}}! Quick question about your search', weight: 1 },
];

describeEachDialect(
  'A/B tests of openings',
  (ctx) => {
    beforeEach(() => ctx().clock.set(DAYTIME));

    it('gives each lead one variant by a hash of its id, records it on the message, and reports per variant with Wilson intervals', async () => {
      const ts = ctx();
      const { client } = await organization(ts, 'openings');
      const created = await client.post('/customerProfiles', {
        name: 'buyers',
        openingMessage: 'Hello {{firstName}}',
        openingVariants: VARIANTS,
      });
      expect(created.status).toBe(201);
      expect(created.body.openingVariants).toEqual(VARIANTS);

      const phones = Array.from({ length: 8 }, () => uniquePhone());
      const leads = await Promise.all(
        phones.map((phone, i) => createLead(client, { phone, firstName: `Lee${i}`, customerProfile: 'buyers' })),
      );
      // Each lead's opening is its variant's text, rendered; the message records the variant.
      await ts.runDue();
      const openings = await Promise.all(leads.map((id) => messagesOf(client, id)));
      for (const ms of openings)
        expect(ms.filter((m) => m.direction === 'outbound').map((m) => m.status)).toEqual(['sent']);
      const variantOf = new Map<string, string>();
      for (const [i, id] of leads.entries()) {
        const expected = pickVariant(VARIANTS, 'buyers', id)!;
        const text = openings[i]!.find((m) => m.direction === 'outbound')!.content.text;
        expect(text).toBe(expected.text.replace('{{firstName}}', `Lee${i}`));
        const row = await ts.server.store.db
          .selectFrom('messages')
          .select('opening_variant')
          .where('lead_id', '=', id)
          .where('direction', '=', 'outbound')
          .executeTakeFirstOrThrow();
        expect(row.opening_variant).toBe(expected.name);
        variantOf.set(id, expected.name);
      }
      // The same lead always gets the same variant (no randomness: a retry or a re-run picks it again).
      for (const id of leads) expect(pickVariant(VARIANTS, 'buyers', id)!.name).toBe(variantOf.get(id));

      // Two leads reply, one of them is qualified, one opts out.
      expect((await client.post('/inbound', { channel: 'sms', from: phones[0], text: 'Yes please' })).status).toBe(200);
      expect((await client.post('/inbound', { channel: 'sms', from: phones[1], text: 'Tell me more' })).status).toBe(
        200,
      );
      expect((await client.patch(`/leads/${leads[0]}`, { isQualified: true })).status).toBe(200);
      expect((await client.post(`/leads/${leads[2]}/unsubscribe`, {})).status).toBe(200);

      const res = await client.get('/analytics/openings?profile=buyers');
      expect(res.status).toBe(200);
      const count = (name: string, pick: (i: number) => boolean) =>
        leads.filter((id, i) => variantOf.get(id) === name && pick(i)).length;
      for (const v of VARIANTS) {
        const got = res.body.variants.find((x: { variant: string }) => x.variant === v.name);
        const sent = count(v.name, () => true);
        const replied = count(v.name, (i) => i === 0 || i === 1);
        expect(got).toMatchObject({
          variant: v.name,
          weight: v.weight,
          sent,
          replied,
          qualified: count(v.name, (i) => i === 0),
          booked: 0,
          optedOut: count(v.name, (i) => i === 2),
        });
        if (sent > 0) {
          expect(got!.rates.replied.rate).toBeCloseTo(replied / sent, 6);
          expect(got!.rates.replied.low).toBeLessThanOrEqual(got!.rates.replied.rate!);
          expect(got!.rates.replied.high).toBeGreaterThanOrEqual(got!.rates.replied.rate!);
        }
      }
      // Eight leads cannot tell two variants apart.
      expect(res.body.significant).toBe(false);

      expectError(await client.get('/analytics/openings?profile=nobody'), 404, /nobody/);
      const csv = await client.get('/analytics/openings?profile=buyers&format=csv');
      expect(String(csv.body).split('\r\n')[0]).toBe(
        'variant,weight,sent,replied,qualified,booked,optedOut,repliedRate,repliedLow,repliedHigh',
      );
    });

    it('refuses variants with the same name', async () => {
      const ts = ctx();
      const { client } = await organization(ts, 'dup-variants');
      const res = await client.post('/customerProfiles', {
        name: 'dups',
        openingVariants: [
          { name: 'a', text: 'x', weight: 1 },
          { name: 'a', text: 'y', weight: 1 },
        ],
      });
      expectError(res, 400, 'openingVariants: each variant needs its own name');
    });
  },
  envFor(fake),
);

it('spreads leads over variants by weight (a hash, not a coin)', () => {
  const counts = { warm: 0, short: 0 };
  for (let i = 0; i < 4000; i++) counts[pickVariant(VARIANTS, 'buyers', `lead-${i}`)!.name as 'warm' | 'short'] += 1;
  expect(counts.warm / 4000).toBeGreaterThan(0.72);
  expect(counts.warm / 4000).toBeLessThan(0.78);
});

it('Wilson intervals: the published values', () => {
  // 5 of 10: 0.2366-0.7634; 0 of 10: 0-0.2775 (Newcombe 1998, method 3).
  expect(wilson(5, 10)).toEqual({ rate: 0.5, low: expect.closeTo(0.2366, 4), high: expect.closeTo(0.7634, 4) });
  expect(wilson(0, 10)).toEqual({ rate: 0, low: 0, high: expect.closeTo(0.2775, 4) });
  expect(wilson(0, 0)).toEqual({ rate: null, low: null, high: null });
  expect(apart(wilson(90, 100), wilson(10, 100))).toBe(true);
  expect(apart(wilson(5, 10), wilson(4, 10))).toBe(false);
});
