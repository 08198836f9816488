import { sql, type Updateable } from 'kysely';
import { insertRows } from '../platform/db/arrays.js';
import { writesInCtes } from '../platform/db/capabilities.js';
import type { AnalyticsRollupsTable, Db, LeadsTable } from '../platform/db/schema.js';
import { errorCodeOf, latencyBucket } from './latency.js';

/**
 * The write side of analytics (docs/analytics.md): called in the transaction
 * that changes the state, by the repositories that change it (a lead's insert
 * and patch, a message's status), so no path that changes the state can skip
 * the count. Each first time is a conditional update (`... is null`, a bit not
 * yet set), so a repeated callback, a retried job or a re-run counts nothing.
 */

export type Counter =
  | 'leads'
  | 'contacted'
  | 'delivered'
  | 'replied'
  | 'hot'
  | 'qualified'
  | 'booked'
  | 'opted_out'
  | 'failed';

export interface Dims {
  day: string;
  profile: string;
  campaign_id: string;
  sending_number_id: string;
  source: string;
}

type Dim = AnalyticsRollupsTable['dim'];

/**
 * The (dim, period, value) rows an event on `dims` counts in: for each report
 * dimension (and `day`, the organization overall) its day row and its month
 * row. A report reads whole months from month rows and only the days at its
 * edges from day rows; the overall month rows give a year's total without
 * adding up its days.
 */
export function cells(dims: Dims): [Dim, string, string][] {
  const month = dims.day.slice(0, 7);
  const out: [Dim, string, string][] = [];
  for (const [dim, value] of [
    ['day', ''],
    ['profile', dims.profile],
    ['campaign', dims.campaign_id],
    ['sendingNumber', dims.sending_number_id],
    ['source', dims.source],
  ] as const) {
    out.push([dim, dims.day, value], [dim, month, value]);
  }
  return out;
}

/** The UTC day of an instant (ISO text). */
export const dayOf = (at: string): string => at.slice(0, 10);

/** One counter up by `by` in each of the event's ten rows: one statement. */
function bumpQuery(db: Db, organizationId: string, dims: Dims, counter: Counter, by = 1) {
  return db
    .insertInto('analytics_rollups')
    .values(
      cells(dims).map(([dim, period, value]) => ({
        organization_id: organizationId,
        dim,
        period,
        value,
        [counter]: by,
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'dim', 'period', 'value'])
        .doUpdateSet({ [counter]: sql`analytics_rollups.${sql.ref(counter)} + excluded.${sql.ref(counter)}` }),
    );
}

async function bump(db: Db, organizationId: string, dims: Dims, counter: Counter, by = 1): Promise<void> {
  await bumpQuery(db, organizationId, dims, counter, by).execute();
}

/** One latency into the histogram of each report dimension, by day and by month (cells): ten rows, one statement. */
function latencyQuery(db: Db, organizationId: string, dims: Dims, kind: 'sent' | 'delivered', ms: number) {
  const bucket = latencyBucket(ms);
  return db
    .insertInto('analytics_latency')
    .values(
      cells(dims).map(([dim, period, value]) => ({
        organization_id: organizationId,
        dim,
        period,
        value,
        kind,
        bucket,
        count: 1,
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['organization_id', 'dim', 'period', 'value', 'kind', 'bucket'])
        .doUpdateSet({ count: sql`analytics_latency.count + 1` }),
    );
}

/**
 * A lead's first send or first delivery: its counter and its latency. On
 * PostgreSQL one statement (the counter's upsert a data-modifying CTE of the
 * histogram's), so one round trip under the lead's lock instead of two;
 * SQLite (in the process, no round trip; no writes in a CTE) runs the two.
 */
async function bumpWithLatency(
  db: Db,
  organizationId: string,
  dims: Dims,
  counter: 'contacted' | 'delivered',
  kind: 'sent' | 'delivered',
  ms: number,
): Promise<void> {
  if (writesInCtes(db)) {
    await sql`with counted as (${bumpQuery(db, organizationId, dims, counter)}) ${latencyQuery(db, organizationId, dims, kind, ms)}`.execute(
      db,
    );
    return;
  }
  await bumpQuery(db, organizationId, dims, counter).execute();
  await latencyQuery(db, organizationId, dims, kind, ms).execute();
}

export interface CreatedLead {
  id: string;
  customer_profile: string;
  created_at: string;
}

/** New leads (one from the API, a batch from an import): their analytics rows and the `leads` counter, one upsert per group. */
export async function noteLeadsCreated(
  db: Db,
  organizationId: string,
  leads: readonly CreatedLead[],
  source: string,
): Promise<void> {
  if (leads.length === 0) return;
  await insertRows(
    db,
    'analytics_leads',
    leads.map((l) => ({
      organization_id: organizationId,
      lead_id: l.id,
      created_at: l.created_at,
      profile: l.customer_profile,
      source,
    })),
  );
  const groups = new Map<string, { dims: Dims; n: number }>();
  for (const l of leads) {
    const dims: Dims = {
      day: dayOf(l.created_at),
      profile: l.customer_profile,
      campaign_id: '',
      sending_number_id: '',
      source,
    };
    const k = `${dims.day}\u0000${dims.profile}`; // campaign, number and source are the same for the whole call
    const g = groups.get(k);
    if (g) g.n += 1;
    else groups.set(k, { dims, n: 1 });
  }
  for (const { dims, n } of groups.values()) await bump(db, organizationId, dims, 'leads', n);
}

type LeadFact = 'replied_at' | 'hot_at' | 'qualified_at' | 'booked_at' | 'opted_out_at';
const FACT_COUNTER: Record<LeadFact, Counter> = {
  replied_at: 'replied',
  hot_at: 'hot',
  qualified_at: 'qualified',
  booked_at: 'booked',
  opted_out_at: 'opted_out',
};

/** A lead's fact recorded the first time only; counted under the lead's dimensions on the day it happened. */
export async function noteLeadFact(
  db: Db,
  organizationId: string,
  leadId: string,
  fact: LeadFact,
  at: string,
): Promise<void> {
  const row = await db
    .updateTable('analytics_leads')
    .set({ [fact]: at })
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where(fact, 'is', null)
    .returning(['profile', 'campaign_id', 'sending_number_id', 'source'])
    .executeTakeFirst();
  if (row) await bump(db, organizationId, { day: dayOf(at), ...row }, FACT_COUNTER[fact]);
}

/** What a patch of the lead row means for the funnel (leads.repository.ts calls it with every patch). */
export async function noteLeadPatch(
  db: Db,
  organizationId: string,
  leadId: string,
  patch: Updateable<LeadsTable>,
): Promise<void> {
  const facts: LeadFact[] = [];
  if (patch.has_replied === 1) facts.push('replied_at');
  if (patch.is_hot === 1) facts.push('hot_at');
  if (patch.is_qualified === 1) facts.push('qualified_at');
  // A lead is booked once, at its first appointment (appointments/): a later one, or a rebooking, counts nothing.
  if (patch.is_booked === 1) facts.push('booked_at');
  if (
    patch.sms_status === 'unsubscribed' ||
    patch.voice_status === 'unsubscribed' ||
    patch.email_status === 'unsubscribed'
  )
    facts.push('opted_out_at');
  const profile = patch.customer_profile;
  if (facts.length === 0 && typeof profile !== 'string') return;
  const at = String(patch.updated_at ?? patch.last_activity_at ?? new Date().toISOString());
  if (typeof profile === 'string') {
    await db
      .updateTable('analytics_leads')
      .set({ profile })
      .where('organization_id', '=', organizationId)
      .where('lead_id', '=', leadId)
      .execute();
  }
  for (const fact of facts) await noteLeadFact(db, organizationId, leadId, fact, at);
}

/** The lead is erased: its row goes; the counters (no person in them) stay. */
export async function forgetLead(db: Db, organizationId: string, leadId: string): Promise<void> {
  await db
    .deleteFrom('analytics_leads')
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .execute();
}

const BIT: Record<string, number> = { sent: 1, delivered: 2, failed: 4, undelivered: 4 };

/** Whether a status is one analytics counts (the caller skips the call otherwise). */
export const countsStatus = (status: string): boolean => BIT[status] !== undefined;

export type MessageKey = { id: string } | { providerMessageId: string };

/**
 * An outbound message reached `sent` (accepted by the provider), `delivered`,
 * or `failed` / `undelivered`: counted once per message and transition (the
 * message's bits), then once per lead for the funnel (first send, first delivery).
 */
export async function noteMessageStatus(
  db: Db,
  organizationId: string,
  key: MessageKey,
  status: string,
  reason: string | null,
  at: string,
  /** The provider's error as deliverability/ classified it (`twilio:30007`, `filtered`); else the code is read from the reason. */
  error?: { code: string | null; class: string | null },
): Promise<void> {
  const bit = BIT[status];
  if (bit === undefined) return;
  let q = db
    .updateTable('messages')
    .set({ analytics_counted: sql`analytics_counted + ${bit}` })
    .where('organization_id', '=', organizationId)
    .where('direction', '=', 'outbound')
    .where(sql<boolean>`(analytics_counted & ${sql.lit(bit)}) = 0`);
  q = 'id' in key ? q.where('id', '=', key.id) : q.where('provider_message_id', '=', key.providerMessageId);
  const returned = q.returning(['lead_id', 'purpose', 'campaign_id', 'sending_number_id', 'opening_variant']);
  const day = dayOf(at);
  const periods = [day, day.slice(0, 7)];
  const column = bit === 1 ? 'sent' : bit === 2 ? 'delivered' : 'failed';
  // PostgreSQL: the message's bit and its number's counters in one statement (a data-modifying CTE), one round trip.
  const pg = writesInCtes(db);
  const messages = pg
    ? (
        await sql<{
          lead_id: string;
          purpose: string;
          campaign_id: string | null;
          sending_number_id: string | null;
          opening_variant: string | null;
        }>`with m as (${returned}), n as (
          insert into analytics_numbers (organization_id, period, sending_number_id, ${sql.ref(column)})
          select ${organizationId}, p.period, coalesce(m.sending_number_id, ''), count(*)
          from m cross join (values (${periods[0]}), (${periods[1]})) as p(period)
          group by p.period, coalesce(m.sending_number_id, '')
          on conflict (organization_id, period, sending_number_id)
          do update set ${sql.ref(column)} = analytics_numbers.${sql.ref(column)} + excluded.${sql.ref(column)}
        ) select * from m`.execute(db)
      ).rows
    : await returned.execute();
  for (const m of messages) {
    const number = m.sending_number_id ?? '';
    if (!pg)
      await db
        .insertInto('analytics_numbers')
        .values(
          periods.map((period) => ({
            organization_id: organizationId,
            period,
            sending_number_id: number,
            [column]: 1,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(['organization_id', 'period', 'sending_number_id'])
            .doUpdateSet({ [column]: sql`analytics_numbers.${sql.ref(column)} + 1` }),
        )
        .execute();
    if (bit === 4) {
      const code = error?.code?.replace(/^[a-z]+:/, '') || errorCodeOf(reason);
      const cls = error?.class ?? null;
      await db
        .insertInto('analytics_errors')
        .values(
          periods.map((period) => ({
            organization_id: organizationId,
            period,
            sending_number_id: number,
            code,
            class: cls,
            count: 1,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(['organization_id', 'period', 'sending_number_id', 'code'])
            .doUpdateSet({ count: sql`analytics_errors.count + 1` }),
        )
        .execute();
    }
    if (m.purpose !== 'conversation') continue;
    if (bit === 1)
      await noteFirstSend(db, organizationId, m.lead_id, m.campaign_id ?? '', number, m.opening_variant, at);
    else if (bit === 2) await noteFirstDelivery(db, organizationId, m.lead_id, at);
    else await noteFailure(db, organizationId, m.lead_id, m.campaign_id ?? '', number, at);
  }
}

const msBetween = (from: string, to: string): number => Date.parse(to) - Date.parse(from);

async function noteFirstSend(
  db: Db,
  organizationId: string,
  leadId: string,
  campaignId: string,
  numberId: string,
  variant: string | null,
  at: string,
): Promise<void> {
  const lead = await db
    .updateTable('analytics_leads')
    .set({ first_sent_at: at, campaign_id: campaignId, sending_number_id: numberId })
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('first_sent_at', 'is', null)
    .returning(['created_at', 'profile', 'source'])
    .executeTakeFirst();
  if (lead) {
    const dims: Dims = {
      day: dayOf(at),
      profile: lead.profile,
      campaign_id: campaignId,
      sending_number_id: numberId,
      source: lead.source,
    };
    await bumpWithLatency(db, organizationId, dims, 'contacted', 'sent', msBetween(lead.created_at, at));
  }
  if (variant !== null) {
    // The first opening variant the lead was sent is the one its outcomes are counted under.
    await db
      .updateTable('analytics_leads')
      .set({ variant, variant_profile: sql`profile` })
      .where('organization_id', '=', organizationId)
      .where('lead_id', '=', leadId)
      .where('variant', 'is', null)
      .execute();
  }
}

async function noteFirstDelivery(db: Db, organizationId: string, leadId: string, at: string): Promise<void> {
  const lead = await db
    .updateTable('analytics_leads')
    .set({ first_delivered_at: at })
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where('first_delivered_at', 'is', null)
    .returning(['created_at', 'profile', 'campaign_id', 'sending_number_id', 'source'])
    .executeTakeFirst();
  if (!lead) return;
  const { created_at, ...rest } = lead;
  const dims: Dims = { day: dayOf(at), ...rest };
  await bumpWithLatency(db, organizationId, dims, 'delivered', 'delivered', msBetween(created_at, at));
}

async function noteFailure(
  db: Db,
  organizationId: string,
  leadId: string,
  campaignId: string,
  numberId: string,
  at: string,
): Promise<void> {
  const lead = await db
    .selectFrom('analytics_leads')
    .select(['profile', 'source'])
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .executeTakeFirst();
  if (!lead) return;
  await bump(
    db,
    organizationId,
    {
      day: dayOf(at),
      profile: lead.profile,
      campaign_id: campaignId,
      sending_number_id: numberId,
      source: lead.source,
    },
    'failed',
  );
}
