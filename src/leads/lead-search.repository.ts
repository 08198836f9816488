import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db, MessagePurpose } from '../platform/db/schema.js';
import { emailStartsWith, lowerStartsWith, prefixEnd } from '../platform/db/prefix.js';
import { selectLeadViews, type LeadViewRow } from '../lead-records/leads.repository.js';

/** What `search` was read as (lead-search.service.ts); the alternatives are ORed. */
export interface SearchTerm {
  phonePrefixes: string[];
  emailPrefix?: string;
  /** A first-name prefix alone, or with a last-name prefix (both must match). */
  names: { first: string; last?: string }[];
  lastNamePrefix?: string;
  externalLeadId?: string;
}

export interface LeadSearchFilter {
  search?: SearchTerm;
  aiOn?: boolean;
  tag?: string;
  profile?: string;
  hasMessages?: boolean;
  needsAttention?: boolean;
  /** Only leads whose latest message is on this channel (the console's inbox). */
  lastChannel?: 'sms' | 'voice' | 'email';
}

/** Where a page starts: after a lead in id order, or in newest-activity-first order. */
export type SearchPosition =
  | { sort: 'created'; afterId?: string }
  /** `at`: the last lead's last_activity_at, or '' when it has none. */
  | { sort: 'lastActivity'; after?: { at: string; id: string } };

export type LeadSearchRow = LeadViewRow & {
  lm_text: string | null;
  /** An email's subject line (0038), apart from lm_text. */
  lm_subject: string | null;
  lm_direction: 'inbound' | 'outbound' | null;
  lm_channel: 'sms' | 'voice' | 'email' | null;
  lm_at: string | null;
  lm_ai: number | null;
  lm_purpose: MessagePurpose | null;
  lm_status: string | null;
  needs_attention: number;
};

/**
 * The lead's latest message, joined once per lead: one probe of
 * messages_lead_idx (organization, lead, id) for the greatest id (ids are
 * time-ordered), then its row by primary key. Both dialects plan it as a
 * nested loop along the page order.
 */
const latestMessageId = sql<string>`(select max(m.id) from messages m where m.organization_id = leads.organization_id and m.lead_id = leads.id)`;

/**
 * The last word is the lead's (unanswered), or the AI's after a handoff turned
 * it off (nobody has answered). A plain condition, not `case ... = 1`: the
 * planner then estimates how many leads pass and walks the page order, where
 * an opaque expression made PostgreSQL read and sort every lead with activity.
 * NULL (not false) for a lead without messages.
 */
const needsAttention = sql<SqlBool>`(lm.direction = 'inbound' or (leads.is_ai_on = 0 and lm.is_ai_generated = 1))`;

/** Each way `term` may match a lead, as a condition on the `leads` row. */
function alternatives(db: Db, term: SearchTerm): RawBuilder<SqlBool>[] {
  const all: RawBuilder<SqlBool>[] = [];
  for (const p of term.phonePrefixes) all.push(sql<SqlBool>`leads.phone >= ${p} and leads.phone < ${prefixEnd(p)}`);
  if (term.emailPrefix) all.push(emailStartsWith(db, term.emailPrefix));
  for (const n of term.names) {
    // The last name is checked on the rows the first name finds, never as an index range of its own:
    // a common last name would otherwise let the planner (without statistics) walk all of its leads.
    all.push(
      n.last
        ? sql<SqlBool>`${lowerStartsWith(db, 'first_name', n.first)} and substr(lower(leads.last_name), 1, ${n.last.length}) = ${n.last}`
        : lowerStartsWith(db, 'first_name', n.first),
    );
  }
  if (term.lastNamePrefix) all.push(lowerStartsWith(db, 'last_name', term.lastNamePrefix));
  if (term.externalLeadId) all.push(sql<SqlBool>`leads.external_lead_id = ${term.externalLeadId}`);
  return all;
}

/** One index range per alternative, joined by UNION ALL (names: migration 0017; emails: 0022; phone: leads_phone_uq; externalLeadId: leads_external_idx). */
function matchingIds(organizationId: string, conditions: RawBuilder<SqlBool>[]): RawBuilder<unknown> {
  const arms = conditions.map(
    (c) => sql`select leads.id from leads where leads.organization_id = ${organizationId} and ${c}`,
  );
  return sql.join(arms, sql` union all `);
}

/** Above this many matches a search is "dense": walking the page order and testing each lead finds a page sooner. */
const DENSE = 2000;

/**
 * The search as a WHERE. A rare term (a name, a number) is `id IN (the union
 * of index ranges)`: a few index probes, then the page is sorted. Written as
 * one OR instead, SQLite without statistics walked the whole organization in
 * page order testing each row (1.5 s at a million leads). A common term (a
 * letter or two) is that OR: at more than DENSE matches a page of them turns
 * up within a few thousand leads of the page order, where the union would
 * collect and sort hundreds of thousands of ids (4 s for a prefix every lead
 * has). One bounded count (at most DENSE index entries) decides.
 */
async function searchCondition(
  db: Db,
  organizationId: string,
  term: SearchTerm,
  denseAbove: number,
): Promise<RawBuilder<SqlBool>> {
  const conditions = alternatives(db, term);
  if (conditions.length === 0) return sql<SqlBool>`1 = 0`;
  const ids = matchingIds(organizationId, conditions);
  const { rows } = await sql<{
    n: number | string;
  }>`select count(*) as n from (select id from (${ids}) as matched limit ${denseAbove}) as capped`.execute(db);
  if (Number(rows[0]?.n ?? 0) < denseAbove) return sql<SqlBool>`leads.id in (${ids})`;
  return sql<SqlBool>`(${sql.join(
    conditions.map((c) => sql`(${c})`),
    sql` or `,
  )})`;
}

/**
 * The search condition of one filter, probed once: the inbox reads a page and the true count under the same
 * filter object, at once, and both would otherwise run the bounded count.
 */
const resolved = new WeakMap<SearchTerm, Promise<RawBuilder<SqlBool>>>();
function resolvedSearch(
  db: Db,
  organizationId: string,
  term: SearchTerm,
  denseAbove: number,
): Promise<RawBuilder<SqlBool>> {
  let condition = resolved.get(term);
  if (!condition) {
    condition = searchCondition(db, organizationId, term, denseAbove);
    resolved.set(term, condition);
  }
  return condition;
}

/**
 * A page (limit+1 rows) of GET /v1/leads with the console's filters. Every
 * filter is a WHERE on the lead row or an indexed probe of its tags and
 * messages; the search alternatives are index ranges (migration 0017).
 */
export interface SearchOptions {
  /** Tests set it to reach both ways of searching with a few leads. */
  denseAbove?: number;
}

/** The leads with their latest message joined, narrowed by every filter of `f`: the page's and the count's one WHERE. */
async function filtered<Q extends FilterableQuery>(
  db: Db,
  organizationId: string,
  base: Q,
  f: LeadSearchFilter,
  options: SearchOptions,
  joined = true,
): Promise<Q> {
  let q = base;
  if (f.search) q = q.where(await resolvedSearch(db, organizationId, f.search, options.denseAbove ?? DENSE)) as Q;
  if (f.aiOn !== undefined) q = q.where('leads.is_ai_on', '=', f.aiOn ? 1 : 0) as Q;
  if (f.profile !== undefined) q = q.where('leads.customer_profile', '=', f.profile) as Q;
  if (f.tag !== undefined) {
    const tag = f.tag;
    q = q.where(
      sql<SqlBool>`exists(select 1 from lead_tags t where t.organization_id = leads.organization_id and t.lead_id = leads.id and t.name = ${tag})`,
    ) as Q;
  }
  if (f.hasMessages === true) q = (joined ? q.where('lm.id', 'is not', null) : q.where(hasAnyMessage)) as Q;
  if (f.hasMessages === false) q = q.where('lm.id', 'is', null) as Q;
  if (f.lastChannel !== undefined) q = q.where('lm.channel', '=', f.lastChannel) as Q;
  if (f.needsAttention === true) q = q.where(needsAttention) as Q;
  if (f.needsAttention === false) q = q.where(sql<SqlBool>`(lm.id is null or not ${needsAttention})`) as Q;
  return q;
}

const withLatestMessage = (db: Db, organizationId: string) =>
  db
    .selectFrom('leads')
    .leftJoin('messages as lm', (j) =>
      j.onRef('lm.organization_id', '=', 'leads.organization_id').on('lm.id', '=', latestMessageId),
    )
    .where('leads.organization_id', '=', organizationId);
type FilterableQuery = ReturnType<typeof withLatestMessage>;

const hasAnyMessage = sql<SqlBool>`exists(select 1 from messages m where m.organization_id = leads.organization_id and m.lead_id = leads.id)`;

/**
 * How many leads pass the filters: the console inbox's true count of its
 * conversations. "Has a message" is a semi-join, which PostgreSQL runs as one
 * pass over the messages index instead of a probe of the latest message per
 * lead; a filter on the latest message (needsAttention, lastChannel) adds the
 * page's join, probed only for the leads the semi-join leaves. Page and count
 * at 100,000 leads, 10,000 talking, on a loaded 2-core machine: PostgreSQL
 * 424 -> 129 ms (needsAttention 540 -> 225 ms), SQLite 110 -> 56 ms.
 */
export async function countLeadViews(
  db: Db,
  organizationId: string,
  f: LeadSearchFilter,
  options: SearchOptions = {},
): Promise<number> {
  const latest = f.needsAttention !== undefined || f.lastChannel !== undefined || f.hasMessages === false;
  // Without the join the query names no `lm` column: `filtered` is told so and tests messages by EXISTS.
  const base = latest
    ? withLatestMessage(db, organizationId).where(f.hasMessages === true ? hasAnyMessage : sql<SqlBool>`1 = 1`)
    : (db.selectFrom('leads').where('leads.organization_id', '=', organizationId) as unknown as FilterableQuery);
  const q = await filtered(db, organizationId, base, f, options, latest);
  const row = await q.select(sql<number | string>`count(*)`.as('n')).executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function searchLeadViews(
  db: Db,
  organizationId: string,
  f: LeadSearchFilter,
  at: SearchPosition,
  limit: number,
  options: SearchOptions = {},
): Promise<LeadSearchRow[]> {
  let q = selectLeadViews(db, organizationId)
    .leftJoin('messages as lm', (j) =>
      j.onRef('lm.organization_id', '=', 'leads.organization_id').on('lm.id', '=', latestMessageId),
    )
    .select([
      sql<string | null>`substr(lm.text, 1, 200)`.as('lm_text'),
      'lm.subject as lm_subject',
      'lm.direction as lm_direction',
      'lm.channel as lm_channel',
      'lm.created_at as lm_at',
      'lm.is_ai_generated as lm_ai',
      'lm.purpose as lm_purpose',
      'lm.status as lm_status',
      sql<number>`(case when ${needsAttention} then 1 else 0 end)`.as('needs_attention'),
    ]);
  q = await filtered(db, organizationId, q, f, options);

  if (at.sort === 'created') {
    if (at.afterId) q = q.where('leads.id', '>', at.afterId);
    return (await q
      .orderBy('leads.id')
      .limit(limit + 1)
      .execute()) as LeadSearchRow[];
  }
  // One keyset over coalesce(last_activity_at, ''): the expression migration 0017 indexes. Leads without
  // activity ('') sort after every timestamp. (Two passes, with activity and then IS NULL, cost PostgreSQL a
  // sort of every lead without activity: it cannot take the index's id order under an IS NULL.)
  const activity = sql<string>`coalesce(leads.last_activity_at, '')`;
  if (at.after) q = q.where(sql<SqlBool>`(${activity}, leads.id) < (${at.after.at}, ${at.after.id})`);
  // None of the leads without activity needs attention: an inbound message, and a sent one, set
  // last_activity_at (inbound/inbound.ts, channels/outbound.ts).
  if (f.needsAttention === true) q = q.where(sql<SqlBool>`${activity} > ''`);
  return (await q
    .orderBy(activity, 'desc')
    .orderBy('leads.id', 'desc')
    .limit(limit + 1)
    .execute()) as LeadSearchRow[];
}
