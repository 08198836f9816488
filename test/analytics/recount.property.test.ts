import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { noteLeadsCreated } from '../../src/analytics-records/recorder.repository.js';
import { deliverability, openings, summary } from '../../src/analytics/analytics.service.js';
import { percentiles } from '../../src/analytics-records/latency.js';
import { campaignOptOutQueries } from '../../src/campaigns/opt-outs.js';
import { applyDeliveryReport, recordSendFailure } from '../../src/deliverability/deliverability.service.js';
import { insertLead, updateLead } from '../../src/lead-records/leads.repository.js';
import { recordLeadCreated } from '../../src/leads/lead-created.js';
import { newLeadRow } from '../../src/leads/new-lead.js';
import { insertMessage, setMessageStatus } from '../../src/messages/messages.repository.js';
import { addressDigests } from '../../src/platform/address-digest.js';
import { loadConfig } from '../../src/platform/config.js';
import type { Deps } from '../../src/platform/deps.js';
import { createLogger } from '../../src/platform/logger.js';
import { onOptOut } from '../../src/subscriptions/opt-out-effects.js';
import { newId } from '../../src/platform/ids.js';
import { dialects } from '../support/harness.js';
import { storeForBlock } from '../support/store.js';

/**
 * The rollups against a recount from the base tables (leads, messages) after
 * any sequence of events, each applied through the function the application
 * uses for it (so through the same hooks): lead creation (API and inbound
 * through recordLeadCreated, an import's batch through noteLeadsCreated), a
 * send accepted by the provider (from the organization's number or a pool
 * number, in a campaign or not), a send refused (recordSendFailure), a
 * delivery report with a code of each class (applyDeliveryReport, so a 21610
 * opts the lead out as the carrier's), a repeated report, a reply, a tag, a
 * booking, an opt-out, repeated facts. Every count of the summary, for every
 * groupBy, and of the deliverability report (by code and by class) equals
 * the recount.
 */
const RUNS = Number(process.env.ANALYTICS_RUNS ?? 25);
const SEED = Number(process.env.ANALYTICS_SEED ?? 20261127);
// The events fall on four days across a month's end (16 a day), so a report reads day rows and month rows.
const DAYS = ['2026-06-29', '2026-06-30', '2026-07-01', '2026-07-02'];
const [FROM, TO] = [DAYS[0]!, DAYS[3]!];
const at = (i: number) =>
  `${DAYS[Math.min(3, Math.floor(i / 16))]}T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z`;

// A code of each class (error-codes.ts), and one Parley does not know.
const CODES = ['30007', '30003', '21211', '21610', '30034', '30001', '12345'] as const;

const event = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    profile: fc.constantFrom('p1', 'p2'),
    source: fc.constantFrom('api', 'import:x', 'inbound'),
  }),
  fc.record({
    kind: fc.constantFrom('send' as const, 'refuse' as const),
    lead: fc.nat(6),
    // Index into the run's campaigns and pool numbers; 2 is none (a plain send, the organization's own number).
    campaign: fc.nat(2),
    number: fc.nat(2),
    // The opening variant the message was written from, if any (the openings A/B report).
    variant: fc.constantFrom(null, 'warm', 'short'),
  }),
  fc.record({
    kind: fc.constantFrom('reply' as const, 'hot' as const, 'qualified' as const, 'booked' as const, 'optOut' as const),
    lead: fc.nat(6),
  }),
  fc.record({
    kind: fc.constantFrom('deliver' as const, 'undeliver' as const, 'fail' as const, 'repeat' as const),
    message: fc.nat(8),
    code: fc.constantFrom(...CODES),
  }),
);

type Fact = 'replied' | 'hot' | 'qualified' | 'booked' | 'optedOut';
const COUNTERS = [
  'leads',
  'contacted',
  'delivered',
  'replied',
  'hot',
  'qualified',
  'booked',
  'optedOut',
  'failed',
] as const;
type Counter = (typeof COUNTERS)[number];
type Funnel = Record<Counter, number>;
const zero = (): Funnel => Object.fromEntries(COUNTERS.map((c) => [c, 0])) as Funnel;
const GROUP_BYS = ['day', 'profile', 'campaign', 'sendingNumber', 'source'] as const;
type Cell = Record<(typeof GROUP_BYS)[number], string>;

let orgCounter = 0;
// What an opt-out also writes, as the server registers it (server.ts): a 21610 report opts the lead out.
onOptOut('campaigns', campaignOptOutQueries);

for (const dialect of dialects()) {
  describe(`analytics rollups against a recount (${dialect})`, () => {
    const storeOf = storeForBlock(dialect);

    it('equal the recount after random sequences of events', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(event, { minLength: 5, maxLength: 60, size: 'max' }), async (events) => {
          orgCounter += 1;
          const org = `recount-${orgCounter}-${Math.random().toString(36).slice(2, 8)}`;
          const db = storeOf().db;
          let now = at(0);
          const deps = {
            db,
            dialect,
            config: loadConfig({ DATABASE_URL: 'sqlite::memory:' }),
            clock: { now: () => new Date(now) },
            log: createLogger('silent'),
            digests: addressDigests('recount-test-key'),
          } satisfies Deps;
          await db
            .insertInto('organizations')
            .values({ id: org, name: org, settings: '{}', created_at: now })
            .execute();
          for (const name of ['p1', 'p2']) {
            await db
              .insertInto('customer_profiles')
              .values({
                organization_id: org,
                id: newId(),
                name,
                description: null,
                instructions: null,
                opening_message: null,
                questions: '[]',
                created_at: now,
                updated_at: now,
              })
              .execute();
          }
          const campaigns = [newId(), newId()];
          for (const [k, id] of campaigns.entries())
            await db
              .insertInto('campaigns')
              .values({
                organization_id: org,
                id,
                name: `c${k}`,
                customer_profile: 'p1',
                filter: '{}',
                start_at: now,
                daily_cap: 1000,
                status: 'running',
                created_at: now,
                updated_at: now,
              })
              .execute();
          const numbers = [newId(), newId()];
          for (const [k, id] of numbers.entries())
            await db
              .insertInto('sending_numbers')
              .values({
                organization_id: org,
                id,
                number: `+1628${String(5000000 + ((orgCounter * 2 + k) % 4_000_000)).padStart(7, '0')}`,
                kind: 'longCode',
                channel: 'sms',
                rate_per_second: 1,
                daily_cap: null,
                created_at: now,
                updated_at: now,
              })
              .execute();
          // What the base tables cannot say: each lead's source (no column of leads holds it) and when each
          // fact first happened (leads hold the flag, not its time). Whether each fact is set is read from leads.
          const leads: { id: string; source: string; facts: Partial<Record<Fact, string>> }[] = [];
          const messages: { id: string; pid: string | null; lead: number; status: string; code: string | null }[] = [];
          const fact = (lead: number, f: Fact) => {
            leads[lead]!.facts[f] ??= now;
          };
          let i = 0;
          for (const e of events) {
            now = at(i++);
            if (e.kind === 'create') {
              const row = newLeadRow(
                {
                  firstName: 'A',
                  phone: `+1415${String(5550000 + orgCounter * 100 + leads.length).slice(-7)}`,
                  email: null,
                  customerProfile: e.profile,
                  additionalInfo: {},
                  isAiOn: false,
                } as never,
                new Map(),
                now,
              );
              await db.transaction().execute(async (trx) => {
                await insertLead(trx, org, row);
                if (e.source === 'import:x') await noteLeadsCreated(trx, org, [row], e.source);
                else
                  await recordLeadCreated(
                    trx,
                    org,
                    row,
                    e.source === 'api' ? { source: 'api' } : { source: 'inbound', channel: 'sms' },
                    now,
                  );
              });
              leads.push({ id: row.id, source: e.source, facts: {} });
              continue;
            }
            if ('lead' in e) {
              const index = e.lead % Math.max(1, leads.length);
              const lead = leads[index]?.id;
              if (!lead) continue;
              if (e.kind === 'send' || e.kind === 'refuse') {
                const id = newId();
                await insertMessage(db, org, {
                  id,
                  lead_id: lead,
                  channel: 'sms',
                  direction: 'outbound',
                  owner: 'user',
                  text: 'hi',
                  is_ai_generated: 0,
                  status: 'scheduled',
                  status_reason: null,
                  scheduled_at: now,
                  created_at: now,
                  campaign_id: campaigns[e.campaign] ?? null,
                  sending_number_id: numbers[e.number] ?? null,
                  opening_variant: e.variant,
                });
                await setMessageStatus(db, org, id, { status: 'sending', reason: null, at: now });
                if (e.kind === 'send') {
                  const pid = `SM${id.replaceAll('-', '')}`;
                  await setMessageStatus(db, org, id, {
                    status: 'sent',
                    reason: null,
                    providerMessageId: pid,
                    at: now,
                  });
                  messages.push({ id, pid, lead: index, status: 'sent', code: null });
                } else {
                  await recordSendFailure(deps, org, id, {
                    reason: 'refused by the provider: Twilio answered HTTP 400: 21211 invalid',
                    error: { provider: 'twilio', code: '21211' },
                    to: null,
                    from: null,
                  });
                  messages.push({ id, pid: null, lead: index, status: 'failed', code: '21211' });
                }
                continue;
              }
              const patch =
                e.kind === 'reply'
                  ? { has_replied: 1 as const }
                  : e.kind === 'hot'
                    ? { is_hot: 1 as const }
                    : e.kind === 'qualified'
                      ? { is_qualified: 1 as const }
                      : e.kind === 'booked'
                        ? { is_booked: 1 as const }
                        : { sms_status: 'unsubscribed' as const };
              await updateLead(db, org, lead, { ...patch, updated_at: now });
              fact(index, e.kind === 'reply' ? 'replied' : e.kind === 'optOut' ? 'optedOut' : e.kind);
              continue;
            }
            const m = messages[e.message % Math.max(1, messages.length)];
            if (!m?.pid) continue;
            const report = (status: 'delivered' | 'undelivered' | 'failed', code: string | null) =>
              applyDeliveryReport(deps, org, {
                providerMessageId: m.pid!,
                status,
                reason: code ? `Twilio error ${code}` : null,
                error: code ? { provider: 'twilio', code } : null,
                to: null,
                from: null,
                actor: 'twilio:recount',
              });
            if (e.kind === 'repeat') {
              // A report repeated: the same final state and code again, which changes nothing.
              if (m.status !== 'sent')
                expect(await report(m.status as 'delivered' | 'undelivered' | 'failed', m.code)).toBe(0);
              continue;
            }
            if (m.status !== 'sent') continue;
            m.status = e.kind === 'deliver' ? 'delivered' : e.kind === 'undeliver' ? 'undelivered' : 'failed';
            m.code = e.kind === 'deliver' ? null : e.code;
            expect(await report(m.status as 'delivered' | 'undelivered' | 'failed', m.code)).toBe(1);
            // 21610: the carrier says the recipient opted out; the lead is opted out as if it had sent STOP.
            if (m.code === '21610') fact(m.lead, 'optedOut');
          }

          // The recount, from the base tables (the lead's source and its facts' times from the sequence, above).
          const leadRows = await db
            .selectFrom('leads')
            .select(['id', 'customer_profile', 'created_at', 'has_replied', 'is_hot', 'is_qualified', 'is_booked'])
            .select('sms_status')
            .where('organization_id', '=', org)
            .execute();
          const messageRows = await db
            .selectFrom('messages')
            .select(['lead_id', 'campaign_id', 'sending_number_id', 'provider_message_id', 'status'])
            .select(['error_code', 'error_class', 'created_at', 'updated_at', 'opening_variant'])
            .where('organization_id', '=', org)
            .where('direction', '=', 'outbound')
            .orderBy('created_at')
            .execute();
          expect(leadRows).toHaveLength(leads.length);
          const counted: { counter: Counter; cell: Cell }[] = [];
          for (const row of leadRows) {
            const lead = leads.find((l) => l.id === row.id)!;
            // Every fact the sequence caused is on the lead, and no other.
            expect({
              replied: row.has_replied === 1,
              hot: row.is_hot === 1,
              qualified: row.is_qualified === 1,
              booked: row.is_booked === 1,
              optedOut: row.sms_status === 'unsubscribed',
            }).toEqual({
              replied: 'replied' in lead.facts,
              hot: 'hot' in lead.facts,
              qualified: 'qualified' in lead.facts,
              booked: 'booked' in lead.facts,
              optedOut: 'optedOut' in lead.facts,
            });
            const mine = messageRows.filter((m) => m.lead_id === row.id);
            // The lead's first contact: its first message the provider accepted; its later events are counted under it.
            const first = mine.find((m) => m.provider_message_id !== null);
            const cell = (
              when: string,
              m?: { campaign_id: string | null; sending_number_id: string | null },
            ): Cell => ({
              day: when.slice(0, 10),
              profile: row.customer_profile,
              source: lead.source,
              campaign: m?.campaign_id ?? '',
              sendingNumber: m?.sending_number_id ?? '',
            });
            const contactAt = (when: string) => (first && first.created_at < when ? first : undefined);
            counted.push({ counter: 'leads', cell: cell(row.created_at) });
            if (first) counted.push({ counter: 'contacted', cell: cell(first.created_at, first) });
            const delivered = mine.filter((m) => m.status === 'delivered').map((m) => m.updated_at ?? '');
            if (delivered.length > 0) {
              const when = delivered.sort()[0]!;
              counted.push({ counter: 'delivered', cell: cell(when, contactAt(when)) });
            }
            for (const [f, when] of Object.entries(lead.facts) as [Fact, string][])
              counted.push({ counter: f, cell: cell(when, contactAt(when)) });
            // A failure is the message's: its campaign and number, not the first contact's.
            for (const m of mine)
              if (m.status === 'failed' || m.status === 'undelivered')
                counted.push({ counter: 'failed', cell: cell(m.updated_at ?? '', m) });
          }
          const recount = (groupBy: (typeof GROUP_BYS)[number]) => {
            const groups = new Map<string, Funnel>();
            for (const { counter, cell } of counted) {
              const g = groups.get(cell[groupBy]) ?? zero();
              g[counter] += 1;
              groups.set(cell[groupBy], g);
            }
            return [...groups.keys()].sort().map((key) => ({ key: key === '' ? null : key, ...groups.get(key)! }));
          };
          const funnelOf = (g: Funnel & { key?: string | null }) =>
            Object.fromEntries(['key', ...COUNTERS].filter((k) => k in g).map((k) => [k, g[k as Counter]]));
          const expected = zero();
          for (const { counter } of counted) expected[counter] += 1;

          const report = await summary(deps, org, FROM, TO, 'profile');
          expect(funnelOf(report.total)).toEqual(expected);
          expect(report.total.speedToLead.firstSend.count).toBe(expected.contacted);
          expect(report.total.speedToLead.firstDelivery.count).toBe(expected.delivered);
          // Every grouping against the recount, and the same range read through whole quarters, whole months
          // (July from its month rows) and days (the end of June): the same answer.
          for (const groupBy of GROUP_BYS) {
            const byDays = await summary(deps, org, FROM, TO, groupBy);
            expect(byDays.groups.map(funnelOf)).toEqual(recount(groupBy));
            for (const g of byDays.groups) {
              expect(g.speedToLead.firstSend.count).toBe(g.contacted);
              expect(g.speedToLead.firstDelivery.count).toBe(g.delivered);
            }
            if (groupBy === 'day') continue;
            const byMonths = await summary(deps, org, '2026-06-20', '2026-07-31', groupBy);
            const wholeMonths = await summary(deps, org, '2026-06-01', '2026-07-31', groupBy);
            // Two whole quarters (Q2 and Q3, from their quarter rows) and the months around them; then June from
            // its month row and July in Q3's rows, so a day counted in the wrong quarter shows.
            const quarters = await summary(deps, org, '2026-03-01', '2026-10-31', groupBy);
            const juneAndQ3 = await summary(deps, org, '2026-06-01', '2026-09-30', groupBy);
            expect(byMonths.groups).toEqual(byDays.groups);
            expect(wholeMonths.groups).toEqual(byDays.groups);
            expect(quarters.groups).toEqual(byDays.groups);
            expect(juneAndQ3.groups).toEqual(byDays.groups);
            expect(byMonths.total).toEqual(report.total);
            expect(wholeMonths.total).toEqual(report.total);
            expect(quarters.total).toEqual(report.total);
            expect(juneAndQ3.total).toEqual(report.total);
          }
          // By day: each day's group is that day's report, and the range's total is the sum of the days.
          const byDay = await summary(deps, org, '2026-06-01', '2026-07-31', 'day');
          expect(byDay.total).toEqual(report.total);
          for (const g of byDay.groups) {
            const { key, ...funnel } = g;
            expect(funnel).toEqual((await summary(deps, org, key!, key!, 'source')).total);
          }
          // The percentiles the database computes are latency.ts's nearest rank over the days' buckets added up.
          const buckets = await db
            .selectFrom('analytics_latency')
            .select(['period', 'kind', 'bucket', 'count'])
            .where('organization_id', '=', org)
            .where('dim', '=', 'day')
            .where(sql<boolean>`length(period) = 10`)
            .execute();
          const histogram = (kind: string, day?: string) => {
            const h = new Map<number, number>();
            for (const b of buckets)
              if (b.kind === kind && (day === undefined || b.period === day))
                h.set(Number(b.bucket), (h.get(Number(b.bucket)) ?? 0) + b.count);
            return h;
          };
          expect(report.total.speedToLead).toEqual({
            firstSend: percentiles(histogram('sent')),
            firstDelivery: percentiles(histogram('delivered')),
          });
          for (const g of byDay.groups)
            expect(g.speedToLead).toEqual({
              firstSend: percentiles(histogram('sent', g.key!)),
              firstDelivery: percentiles(histogram('delivered', g.key!)),
            });

          // Openings per profile and variant: the leads whose first sent message with a variant had it, and of
          // those how many replied, qualified, booked and opted out (at any time, before the opening too).
          for (const profile of ['p1', 'p2']) {
            const variants = new Map<
              string,
              { sent: number; replied: number; qualified: number; booked: number; optedOut: number }
            >();
            for (const row of leadRows) {
              if (row.customer_profile !== profile) continue;
              const opening = messageRows.find(
                (m) => m.lead_id === row.id && m.provider_message_id !== null && m.opening_variant !== null,
              );
              if (!opening) continue;
              const v = variants.get(opening.opening_variant!) ?? {
                sent: 0,
                replied: 0,
                qualified: 0,
                booked: 0,
                optedOut: 0,
              };
              variants.set(opening.opening_variant!, v);
              v.sent += 1;
              v.replied += row.has_replied;
              v.qualified += row.is_qualified;
              v.booked += row.is_booked ?? 0;
              v.optedOut += row.sms_status === 'unsubscribed' ? 1 : 0;
            }
            expect(
              (await openings(deps, org, profile)).variants.map(
                ({ variant, sent, replied, qualified, booked, optedOut }) => ({
                  variant,
                  sent,
                  replied,
                  qualified,
                  booked,
                  optedOut,
                }),
              ),
            ).toEqual([...variants.keys()].sort().map((variant) => ({ variant, ...variants.get(variant)! })));
          }

          // Deliverability per sending number (the organization's own is null): sent, delivered, failed, and the
          // failures by code and by class, against the messages' own columns.
          const del = await deliverability(deps, org, FROM, TO);
          expect((await deliverability(deps, org, '2026-06-20', '2026-07-31')).numbers).toEqual(del.numbers);
          expect((await deliverability(deps, org, '2026-03-01', '2026-10-31')).numbers).toEqual(del.numbers);
          const perNumber = new Map<
            string,
            {
              sent: number;
              delivered: number;
              failed: number;
              codes: Map<string, number>;
              classes: Map<string, number>;
            }
          >();
          for (const m of messageRows) {
            if (m.provider_message_id === null && m.status !== 'failed') continue;
            const id = m.sending_number_id ?? '';
            const n = perNumber.get(id) ?? { sent: 0, delivered: 0, failed: 0, codes: new Map(), classes: new Map() };
            perNumber.set(id, n);
            if (m.provider_message_id !== null) n.sent += 1;
            if (m.status === 'delivered') n.delivered += 1;
            if (m.status === 'failed' || m.status === 'undelivered') {
              n.failed += 1;
              const code = `${m.error_code!.replace(/^twilio:/, '')}/${m.error_class}`;
              n.codes.set(code, (n.codes.get(code) ?? 0) + 1);
              n.classes.set(m.error_class!, (n.classes.get(m.error_class!) ?? 0) + 1);
            }
          }
          expect(
            del.numbers.map((n) => ({
              id: n.sendingNumberId ?? '',
              sent: n.sent,
              delivered: n.delivered,
              failed: n.failed,
              codes: new Map(n.failuresByCode.map((f) => [`${f.code}/${f.class}`, f.count])),
              classes: new Map(n.failuresByClass.map((f) => [f.class!, f.count])),
            })),
          ).toEqual([...perNumber.keys()].sort().map((id) => ({ id, ...perNumber.get(id)! })));
        }),
        {
          numRuns: RUNS,
          seed: SEED,
          // Repeats first: a tag twice, a reply twice, a callback twice.
          examples: [
            [
              [
                { kind: 'create', profile: 'p1', source: 'api' },
                { kind: 'hot', lead: 0 },
                { kind: 'hot', lead: 0 },
                { kind: 'reply', lead: 0 },
                { kind: 'reply', lead: 0 },
                { kind: 'booked', lead: 0 },
                { kind: 'booked', lead: 0 },
                { kind: 'send', lead: 0, campaign: 0, number: 0, variant: 'warm' },
                { kind: 'deliver', message: 0, code: '30007' },
                { kind: 'repeat', message: 0, code: '30007' },
                { kind: 'send', lead: 0, campaign: 1, number: 1, variant: 'short' },
                { kind: 'undeliver', message: 1, code: '30007' },
                { kind: 'repeat', message: 1, code: '30007' },
                { kind: 'create', profile: 'p2', source: 'inbound' },
                { kind: 'send', lead: 1, campaign: 2, number: 2, variant: null },
                { kind: 'undeliver', message: 2, code: '21610' },
                { kind: 'refuse', lead: 1, campaign: 0, number: 1, variant: 'warm' },
              ],
            ],
          ],
        },
      );
    }, 240_000);
  });
}
