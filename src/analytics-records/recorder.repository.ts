import { sql, type Updateable } from 'kysely';
import { insertRows } from '../platform/db/arrays.js';
import type { AnalyticsRollupsTable, Db, LeadsTable } from '../platform/db/schema.js';
import { errorCodeOf, latencyBucket } from './latency.js';
import { addPending, type PendingCount } from './pending.repository.js';

/**
 * The write side of analytics (docs/analytics.md): called in the transaction
 * that changes the state, by the repositories that change it (a lead's insert
 * and patch, a message's status), so no path that changes the state can skip
 * the count. Each first time is a conditional update (`... is null`, a bit not
 * yet set), so a repeated callback, a retried job or a re-run counts nothing.
 * The counts themselves are queued (pending.repository.ts) rather than added
 * to the organization's shared rollup rows here.
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

/** The calendar quarter of a UTC day, `YYYY-Qn` (the same length as a month, told apart by its `Q`). */
export const quarterOf = (day: string): string =>
  `${day.slice(0, 4)}-Q${Math.floor((Number(day.slice(5, 7)) - 1) / 3) + 1}`;

/** The periods an event of `day` is counted in: its day, its month and its quarter. */
const periodsOf = (day: string): [string, string, string] => [day, day.slice(0, 7), quarterOf(day)];

/**
 * The (dim, period, value) rows an event on `dims` counts in: for each report
 * dimension (and `day`, the organization overall) its day row, its month row
 * and its quarter row. A report reads whole quarters from quarter rows, the
 * other whole months from month rows and only the days at its edges from day
 * rows; the overall rows give a year's total without adding up its days.
 */
export function cells(dims: Dims): [Dim, string, string][] {
  const out: [Dim, string, string][] = [];
  for (const [dim, value] of [
    ['day', ''],
    ['profile', dims.profile],
    ['campaign', dims.campaign_id],
    ['sendingNumber', dims.sending_number_id],
    ['source', dims.source],
  ] as const) {
    for (const period of periodsOf(dims.day)) out.push([dim, period, value]);
  }
  return out;
}

/** The UTC day of an instant (ISO text). */
export const dayOf = (at: string): string => at.slice(0, 10);

/** One counter up by `by` in each of the event's fifteen rows. */
function counted(organizationId: string, dims: Dims, counter: Counter, by = 1): PendingCount {
  return {
    target: 'analytics_rollups',
    cells: cells(dims).map(([dim, period, value]) => ({ organization_id: organizationId, dim, period, value })),
    counter,
    amount: by,
  };
}

/** One latency into the histogram of each report dimension, by day, month and quarter (cells): fifteen rows. */
function latency(organizationId: string, dims: Dims, kind: 'sent' | 'delivered', ms: number): PendingCount {
  const bucket = latencyBucket(ms);
  return {
    target: 'analytics_latency',
    cells: cells(dims).map(([dim, period, value]) => ({
      organization_id: organizationId,
      dim,
      period,
      value,
      kind,
      bucket,
    })),
    counter: 'count',
  };
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
  await addPending(
    db,
    organizationId,
    [...groups.values()].map(({ dims, n }) => counted(organizationId, dims, 'leads', n)),
  );
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
  await addPending(db, organizationId, await factCounts(db, organizationId, leadId, fact, at));
}

/** The outcomes the openings A/B report counts per variant (analytics_variants); `hot` is not one of them. */
const VARIANT_FACTS = ['replied_at', 'qualified_at', 'booked_at', 'opted_out_at'] as const;
type VariantFact = (typeof VARIANT_FACTS)[number];
const VARIANT_COUNTER: Record<VariantFact, string> = {
  replied_at: 'replied',
  qualified_at: 'qualified',
  booked_at: 'booked',
  opted_out_at: 'opted_out',
};

/** One counter up in the row of a profile's opening variant. */
function variantCount(organizationId: string, profile: string, variant: string, counter: string): PendingCount {
  return {
    target: 'analytics_variants',
    cells: [{ organization_id: organizationId, profile, variant }],
    counter,
  };
}

/**
 * Records the fact on the lead's analytics row if it is the first; answers what it counts then: the funnel's
 * counter, and the lead's opening variant's if it has one by now (a fact before the variant is counted when
 * the variant is set: noteFirstSend). Both read the row they update, so on PostgreSQL the second of the two
 * to take the row's lock sees the first's commit, and each fact reaches the variant's row exactly once.
 */
async function factCounts(
  db: Db,
  organizationId: string,
  leadId: string,
  fact: LeadFact,
  at: string,
): Promise<PendingCount[]> {
  const row = await db
    .updateTable('analytics_leads')
    .set({ [fact]: at })
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .where(fact, 'is', null)
    .returning(['profile', 'campaign_id', 'sending_number_id', 'source', 'variant', 'variant_profile'])
    .executeTakeFirst();
  if (!row) return [];
  const { variant, variant_profile, ...dims } = row;
  const counts = [counted(organizationId, { day: dayOf(at), ...dims }, FACT_COUNTER[fact])];
  if (variant !== null && variant_profile !== null && fact !== 'hot_at')
    counts.push(variantCount(organizationId, variant_profile, variant, VARIANT_COUNTER[fact]));
  return counts;
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
  const counts: PendingCount[] = [];
  for (const fact of facts) counts.push(...(await factCounts(db, organizationId, leadId, fact, at)));
  // One queue insert for the patch's facts.
  await addPending(db, organizationId, counts);
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
  const periods = periodsOf(dayOf(at));
  const column = bit === 1 ? 'sent' : bit === 2 ? 'delivered' : 'failed';
  // The message's counts and its lead's first-time counts, queued in one insert.
  const counts: PendingCount[] = [];
  for (const m of await returned.execute()) {
    const number = m.sending_number_id ?? '';
    counts.push({
      target: 'analytics_numbers',
      cells: periods.map((period) => ({ organization_id: organizationId, period, sending_number_id: number })),
      counter: column,
    });
    if (bit === 4) {
      const code = error?.code?.replace(/^[a-z]+:/, '') || errorCodeOf(reason);
      const cls = error?.class ?? null;
      counts.push({
        target: 'analytics_errors',
        cells: periods.map((period) => ({
          organization_id: organizationId,
          period,
          sending_number_id: number,
          code,
          class: cls,
        })),
        counter: 'count',
      });
    }
    if (m.purpose !== 'conversation') continue;
    if (bit === 1)
      await noteFirstSend(db, organizationId, m.lead_id, m.campaign_id ?? '', number, m.opening_variant, at, counts);
    else if (bit === 2) await noteFirstDelivery(db, organizationId, m.lead_id, at, counts);
    else await noteFailure(db, organizationId, m.lead_id, m.campaign_id ?? '', number, at, counts);
  }
  await addPending(db, organizationId, counts);
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
  counts: PendingCount[],
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
    counts.push(
      counted(organizationId, dims, 'contacted'),
      latency(organizationId, dims, 'sent', msBetween(lead.created_at, at)),
    );
  }
  if (variant !== null) {
    // The first opening variant the lead was sent is the one its outcomes are counted under: the variant's
    // row counts the lead as sent it, and the outcomes it already has (a reply before the opening went out).
    const row = await db
      .updateTable('analytics_leads')
      .set({ variant, variant_profile: sql`profile` })
      .where('organization_id', '=', organizationId)
      .where('lead_id', '=', leadId)
      .where('variant', 'is', null)
      .returning(['profile', ...VARIANT_FACTS])
      .executeTakeFirst();
    if (row) {
      counts.push(variantCount(organizationId, row.profile, variant, 'sent'));
      for (const fact of VARIANT_FACTS)
        if (row[fact] !== null) counts.push(variantCount(organizationId, row.profile, variant, VARIANT_COUNTER[fact]));
    }
  }
}

async function noteFirstDelivery(
  db: Db,
  organizationId: string,
  leadId: string,
  at: string,
  counts: PendingCount[],
): Promise<void> {
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
  counts.push(
    counted(organizationId, dims, 'delivered'),
    latency(organizationId, dims, 'delivered', msBetween(created_at, at)),
  );
}

async function noteFailure(
  db: Db,
  organizationId: string,
  leadId: string,
  campaignId: string,
  numberId: string,
  at: string,
  counts: PendingCount[],
): Promise<void> {
  const lead = await db
    .selectFrom('analytics_leads')
    .select(['profile', 'source'])
    .where('organization_id', '=', organizationId)
    .where('lead_id', '=', leadId)
    .executeTakeFirst();
  if (!lead) return;
  counts.push(
    counted(
      organizationId,
      {
        day: dayOf(at),
        profile: lead.profile,
        campaign_id: campaignId,
        sending_number_id: numberId,
        source: lead.source,
      },
      'failed',
    ),
  );
}
