import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { noteLeadsCreated } from '../../src/analytics-records/recorder.repository.js';
import { deliverability, summary } from '../../src/analytics/analytics.service.js';
import { percentiles } from '../../src/analytics-records/latency.js';
import { insertLead, updateLead } from '../../src/lead-records/leads.repository.js';
import { newLeadRow } from '../../src/leads/new-lead.js';
import { insertMessage, setMessageStatus, setStatusByProviderId } from '../../src/messages/messages.repository.js';
import type { Deps } from '../../src/platform/deps.js';
import { newId } from '../../src/platform/ids.js';
import { dialects } from '../support/harness.js';
import { storeForBlock } from '../support/store.js';

/**
 * The rollups against a recount from the base tables (leads, messages) after
 * any sequence of events, each applied through the repository function the
 * application uses for it (so through the same hooks): lead creation (API or
 * import), a send accepted by the provider, a delivery, a failure (refused at
 * send, or undelivered by callback, with a code), a repeated callback, a
 * reply, a tag, an opt-out, repeated tags. Every count the summary and the
 * deliverability report give equals the recount.
 */
const RUNS = Number(process.env.ANALYTICS_RUNS ?? 25);
const SEED = Number(process.env.ANALYTICS_SEED ?? 20261127);
// The events fall on four days across a month's end (16 a day), so a report reads day rows and month rows.
const DAYS = ['2026-06-29', '2026-06-30', '2026-07-01', '2026-07-02'];
const [FROM, TO] = [DAYS[0]!, DAYS[3]!];
const at = (i: number) =>
  `${DAYS[Math.min(3, Math.floor(i / 16))]}T10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z`;

const event = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    profile: fc.constantFrom('p1', 'p2'),
    source: fc.constantFrom('api', 'import:x'),
  }),
  fc.record({
    kind: fc.constantFrom(
      'send' as const,
      'refuse' as const,
      'reply' as const,
      'hot' as const,
      'qualified' as const,
      'optOut' as const,
    ),
    lead: fc.nat(6),
  }),
  fc.record({
    kind: fc.constantFrom('deliver' as const, 'undeliver' as const, 'repeat' as const),
    message: fc.nat(8),
    code: fc.constantFrom('30007', '30003', '21610'),
  }),
);

let orgCounter = 0;

for (const dialect of dialects()) {
  describe(`analytics rollups against a recount (${dialect})`, () => {
    const storeOf = storeForBlock(dialect);

    it('equal the recount after random sequences of events', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(event, { minLength: 5, maxLength: 60, size: 'max' }), async (events) => {
          orgCounter += 1;
          const org = `recount-${orgCounter}-${Math.random().toString(36).slice(2, 8)}`;
          const db = storeOf().db;
          await db
            .insertInto('organizations')
            .values({ id: org, name: org, settings: '{}', created_at: at(0) })
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
                created_at: at(0),
                updated_at: at(0),
              })
              .execute();
          }
          const leads: string[] = [];
          const messages: { id: string; pid: string | null; status: string; reason: string | null }[] = [];
          let i = 0;
          for (const e of events) {
            const now = at(i++);
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
              await insertLead(db, org, row);
              await noteLeadsCreated(db, org, [row], e.source);
              leads.push(row.id);
              continue;
            }
            if ('lead' in e) {
              const lead = leads[e.lead % Math.max(1, leads.length)];
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
                });
                if (e.kind === 'send') {
                  const pid = `SM${id.replaceAll('-', '')}`;
                  await setMessageStatus(db, org, id, { status: 'sending', reason: null, at: now });
                  await setMessageStatus(db, org, id, {
                    status: 'sent',
                    reason: null,
                    providerMessageId: pid,
                    at: now,
                  });
                  messages.push({ id, pid, status: 'sent', reason: null });
                } else {
                  await setMessageStatus(db, org, id, {
                    status: 'failed',
                    reason: 'refused by the provider: Twilio answered HTTP 400: 21211 invalid',
                    at: now,
                  });
                  messages.push({ id, pid: null, status: 'failed', reason: '21211' });
                }
              } else {
                const patch =
                  e.kind === 'reply'
                    ? { has_replied: 1 as const }
                    : e.kind === 'hot'
                      ? { is_hot: 1 as const }
                      : e.kind === 'qualified'
                        ? { is_qualified: 1 as const }
                        : { sms_status: 'unsubscribed' as const };
                await updateLead(db, org, lead, { ...patch, updated_at: now });
              }
              continue;
            }
            const m = messages[e.message % Math.max(1, messages.length)];
            if (!m || !m.pid) continue;
            if (e.kind === 'repeat') {
              // A callback repeated: the same final state again.
              if (m.status === 'delivered' || m.status === 'undelivered')
                await setStatusByProviderId(
                  db,
                  org,
                  m.pid,
                  m.status,
                  m.status === 'delivered' ? null : `Twilio error ${m.reason}`,
                  now,
                );
              continue;
            }
            if (m.status !== 'sent') continue;
            m.status = e.kind === 'deliver' ? 'delivered' : 'undelivered';
            m.reason = e.kind === 'deliver' ? null : e.code;
            await setStatusByProviderId(db, org, m.pid, m.status, m.reason ? `Twilio error ${m.reason}` : null, now);
          }

          // The recount, from the base tables only.
          const n = async (q: ReturnType<typeof sql<{ n: number | string }>>) =>
            Number((await q.execute(db)).rows[0]?.n ?? 0);
          const expected = {
            leads: await n(sql`select count(*) as n from leads where organization_id = ${org}`),
            contacted: await n(
              sql`select count(distinct lead_id) as n from messages where organization_id = ${org} and direction = 'outbound' and provider_message_id is not null`,
            ),
            delivered: await n(
              sql`select count(distinct lead_id) as n from messages where organization_id = ${org} and status = 'delivered'`,
            ),
            replied: await n(sql`select count(*) as n from leads where organization_id = ${org} and has_replied = 1`),
            hot: await n(sql`select count(*) as n from leads where organization_id = ${org} and is_hot = 1`),
            qualified: await n(
              sql`select count(*) as n from leads where organization_id = ${org} and is_qualified = 1`,
            ),
            booked: 0,
            optedOut: await n(
              sql`select count(*) as n from leads where organization_id = ${org} and sms_status = 'unsubscribed'`,
            ),
            failed: await n(
              sql`select count(*) as n from messages where organization_id = ${org} and status in ('failed', 'undelivered')`,
            ),
          };
          const deps = { db } as unknown as Deps;
          const report = await summary(deps, org, FROM, TO, 'profile');
          expect(report.total).toMatchObject(expected);
          expect(report.total.speedToLead.firstSend.count).toBe(expected.contacted);
          expect(report.total.speedToLead.firstDelivery.count).toBe(expected.delivered);
          // The same day read through whole months (July from its month rows) and days (the end of June): the same answer.
          for (const groupBy of ['profile', 'source', 'campaign', 'sendingNumber'] as const) {
            const byDays = await summary(deps, org, FROM, TO, groupBy);
            const byMonths = await summary(deps, org, '2026-06-20', '2026-07-31', groupBy);
            const wholeMonths = await summary(deps, org, '2026-06-01', '2026-07-31', groupBy);
            expect(byMonths.groups).toEqual(byDays.groups);
            expect(wholeMonths.groups).toEqual(byDays.groups);
            expect(byMonths.total).toEqual(report.total);
            expect(wholeMonths.total).toEqual(report.total);
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
          for (const g of report.groups) {
            const leadsOf = await n(
              sql`select count(*) as n from leads where organization_id = ${org} and customer_profile = ${g.key}`,
            );
            expect(g.leads).toBe(leadsOf);
          }
          const del = await deliverability(deps, org, FROM, TO);
          expect((await deliverability(deps, org, '2026-06-20', '2026-07-31')).numbers).toEqual(del.numbers);
          const sent = await n(
            sql`select count(*) as n from messages where organization_id = ${org} and provider_message_id is not null`,
          );
          if (messages.length === 0) expect(del.numbers).toEqual([]);
          else {
            expect(del.numbers).toHaveLength(1);
            expect(del.numbers[0]).toMatchObject({
              sent,
              delivered: await n(
                sql`select count(*) as n from messages where organization_id = ${org} and status = 'delivered'`,
              ),
              failed: expected.failed,
            });
            const codes = new Map<string, number>();
            for (const m of messages)
              if (m.status === 'failed' || m.status === 'undelivered')
                codes.set(m.reason!, (codes.get(m.reason!) ?? 0) + 1);
            expect(new Map(del.numbers[0]!.failuresByCode.map((f) => [f.code!, f.count]))).toEqual(codes);
          }
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
                { kind: 'send', lead: 0 },
                { kind: 'deliver', message: 0, code: '30007' },
                { kind: 'repeat', message: 0, code: '30007' },
                { kind: 'send', lead: 0 },
                { kind: 'undeliver', message: 1, code: '30007' },
                { kind: 'repeat', message: 1, code: '30007' },
              ],
            ],
          ],
        },
      );
    }, 240_000);
  });
}
