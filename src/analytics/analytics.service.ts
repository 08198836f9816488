import type { Deps } from '../platform/deps.js';
import { csvLine } from '../platform/csv.js';
import { ERROR_CLASSES } from '../deliverability/error-codes.js';
import { DomainError } from '../platform/errors.js';
import { requireProfile } from '../profiles/profiles.service.js';
import { parseVariants } from '../profiles/variants.js';
import * as repo from './analytics.repository.js';
import { foldOrganization } from '../analytics-records/pending.repository.js';
import { quarterOf } from '../analytics-records/recorder.repository.js';
import type { DeliverabilityReply, GroupBy, OpeningsReply, SummaryReply } from './analytics.schemas.js';
import type { Percentiles } from '../analytics-records/latency.js';
import { apart, wilson } from './wilson.js';

/** The longest range a report covers: a year and a day (leap years). */
export const MAX_DAYS = 366;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function dayValue(field: string, value: string): number {
  const m = DAY.exec(value);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
    throw new DomainError('invalid_range', {
      detail: `${field} must be a date, YYYY-MM-DD (UTC), like 2026-07-01; got ${JSON.stringify(value)}`,
    });
  }
  return ms;
}

/** [from, to], both UTC days included: a clear 400 for a bad date, a reversed range or one over MAX_DAYS. */
export function checkRange(from: string, to: string): void {
  const a = dayValue('from', from);
  const b = dayValue('to', to);
  if (b < a)
    throw new DomainError('invalid_range', {
      detail: `to (${to}) is before from (${from}): the range is from..to, both days included`,
    });
  const days = (b - a) / 86_400_000 + 1;
  if (days > MAX_DAYS)
    throw new DomainError('invalid_range', {
      detail: `The range covers ${days} days; at most ${MAX_DAYS} are allowed`,
    });
}

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * [from, to] cut into the whole UTC months inside it (read from month rows)
 * and the day ranges left at either end (read from day rows).
 */
export function coverage(from: string, to: string): { months: string[]; days: [string, string][] } {
  const a = Date.parse(`${from}T00:00:00Z`);
  const b = Date.parse(`${to}T00:00:00Z`);
  const months: string[] = [];
  const days: [string, string][] = [];
  let cursor = a;
  let dayStart: number | undefined;
  while (cursor <= b) {
    const d = new Date(cursor);
    const monthStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - DAY_MS;
    if (cursor === monthStart && monthEnd <= b) {
      if (dayStart !== undefined) days.push([iso(dayStart), iso(cursor - DAY_MS)]);
      dayStart = undefined;
      months.push(iso(cursor).slice(0, 7));
      cursor = monthEnd + DAY_MS;
    } else {
      dayStart ??= cursor;
      cursor = Math.min(monthEnd, b) + DAY_MS;
    }
  }
  if (dayStart !== undefined) days.push([iso(dayStart), iso(b)]);
  return { months, days };
}

/**
 * Whole months with each calendar quarter they fill replaced by the quarter's
 * period (`2026-Q2`): its rows are the sum of its three months' rows (every
 * event is counted in its day, month and quarter: recorder.repository.ts), so
 * a year reads four quarters' rows instead of twelve months' (a year by
 * sending number added up 148k month rows on each request).
 */
export function foldQuarters(months: readonly string[]): string[] {
  const have = new Set(months);
  const out: string[] = [];
  for (const month of months) {
    const m = Number(month.slice(5, 7));
    const first = m - ((m - 1) % 3);
    const quarter = [0, 1, 2].map((i) => `${month.slice(0, 5)}${String(first + i).padStart(2, '0')}`);
    if (!quarter.every((q) => have.has(q))) out.push(month);
    else if (m === first) out.push(quarterOf(`${month}-01`));
  }
  return out;
}

/** The statements a range is read with: its whole quarters and months at once, each run of days apart. */
function slicesOf(from: string, to: string): repo.Slice[] {
  const { months, days } = coverage(from, to);
  const periods = foldQuarters(months);
  return [...(periods.length > 0 ? [{ months: periods }] : []), ...days.map(([a, b]) => ({ from: a, to: b }))];
}

function mergeCounters(rows: repo.CounterRow[]): repo.CounterRow[] {
  const out = new Map<string, repo.CounterRow>();
  for (const r of rows) {
    const have = out.get(r.key);
    if (!have) out.set(r.key, { ...r });
    else for (const k of Object.keys(ZERO) as (keyof typeof ZERO)[]) have[k] += r[k];
  }
  return [...out.values()];
}

function mergeNumbers(rows: repo.NumberRow[]): repo.NumberRow[] {
  const out = new Map<string, repo.NumberRow>();
  for (const r of rows) {
    const have = out.get(r.sending_number_id);
    if (!have) out.set(r.sending_number_id, { ...r });
    else
      Object.assign(have, {
        sent: have.sent + r.sent,
        delivered: have.delivered + r.delivered,
        failed: have.failed + r.failed,
      });
  }
  return [...out.values()];
}

function mergeErrors(rows: repo.ErrorRow[]): repo.ErrorRow[] {
  const out = new Map<string, repo.ErrorRow>();
  for (const r of rows) {
    const k = `${r.sending_number_id}\u0000${r.code}`;
    const have = out.get(k);
    if (!have) out.set(k, { ...r });
    else Object.assign(have, { count: have.count + r.count, class: have.class ?? r.class });
  }
  return [...out.values()].sort((a, b) =>
    a.sending_number_id === b.sending_number_id
      ? a.code < b.code
        ? -1
        : 1
      : a.sending_number_id < b.sending_number_id
        ? -1
        : 1,
  );
}

type Funnel = SummaryReply['total'];
type Speed = Funnel['speedToLead'];

const NONE: Percentiles = { count: 0, p50: null, p90: null, p95: null };

function funnelOf(c: Omit<repo.CounterRow, 'key'>, speed: Speed | undefined): Funnel {
  return {
    leads: c.leads,
    contacted: c.contacted,
    delivered: c.delivered,
    replied: c.replied,
    hot: c.hot,
    qualified: c.qualified,
    booked: c.booked,
    optedOut: c.opted_out,
    failed: c.failed,
    speedToLead: speed ?? { firstSend: NONE, firstDelivery: NONE },
  };
}

/** The percentile rows per group, as the report's speedToLead. */
function speedByKey(rows: readonly repo.LatencyRow[]): Map<string, Speed> {
  const out = new Map<string, Speed>();
  for (const { key, kind, ...p } of rows) {
    const have = out.get(key) ?? { firstSend: NONE, firstDelivery: NONE };
    out.set(key, kind === 'sent' ? { ...have, firstSend: p } : { ...have, firstDelivery: p });
  }
  return out;
}

const ZERO = {
  leads: 0,
  contacted: 0,
  delivered: 0,
  replied: 0,
  hot: 0,
  qualified: 0,
  booked: 0,
  opted_out: 0,
  failed: 0,
};

export async function summary(
  deps: Deps,
  organizationId: string,
  from: string,
  to: string,
  groupBy: GroupBy = 'day',
): Promise<SummaryReply> {
  checkRange(from, to);
  await foldOrganization(deps.db, organizationId);
  // Whole months from month rows, the days around them from day rows; by day, each day is its own group: the day rows.
  const range = slicesOf(from, to);
  const slices = groupBy === 'day' ? [{ from, to }] : range;
  // The three reads are independent: on PostgreSQL they run side by side on the pool's connections.
  const [counterRows, speedRows, totalRows] = await Promise.all([
    Promise.all(slices.map((s) => repo.sumCounters(deps.db, organizationId, groupBy, s))),
    repo.latencyPercentiles(deps.db, organizationId, groupBy, groupBy === 'day' ? 'period' : 'value', slices),
    // The whole range's speed to lead: the overall histogram (dim day, one group ''), from its month rows and edge days.
    repo.latencyPercentiles(deps.db, organizationId, 'day', 'value', range),
  ]);
  const counters = mergeCounters(counterRows.flat());
  const speed = speedByKey(speedRows);
  const totalSpeed = speedByKey(totalRows).get('');
  const keys = [...new Set([...counters.map((c) => c.key), ...speed.keys()])].sort();
  const byKey = new Map(counters.map((c) => [c.key, c]));
  const total = { ...ZERO };
  for (const c of counters) for (const k of Object.keys(ZERO) as (keyof typeof ZERO)[]) total[k] += c[k];
  // A campaign's group says its name (the key is its id, which a person does not read); only for this grouping.
  const names =
    groupBy === 'campaign'
      ? await repo.campaignNamesById(
          deps.db,
          organizationId,
          keys.filter((k) => k !== ''),
        )
      : undefined;
  return {
    from,
    to,
    groupBy,
    groups: keys.map((key) => ({
      key: key === '' ? null : key,
      ...(names ? { name: names.get(key) ?? null } : {}),
      ...funnelOf(byKey.get(key) ?? { ...ZERO }, speed.get(key)),
    })),
    total: funnelOf(total, totalSpeed),
  };
}

export async function deliverability(
  deps: Deps,
  organizationId: string,
  from: string,
  to: string,
): Promise<DeliverabilityReply> {
  checkRange(from, to);
  await foldOrganization(deps.db, organizationId);
  const slices = slicesOf(from, to);
  const numbers = mergeNumbers(
    (await Promise.all(slices.map((s) => repo.sumNumbers(deps.db, organizationId, s)))).flat(),
  );
  const errors = mergeErrors((await Promise.all(slices.map((s) => repo.sumErrors(deps.db, organizationId, s)))).flat());
  const ids = [
    ...new Set([...numbers.map((n) => n.sending_number_id), ...errors.map((e) => e.sending_number_id)]),
  ].sort();
  const e164 = await repo.numbersById(
    deps.db,
    organizationId,
    ids.filter((id) => id !== ''),
  );
  const byId = new Map(numbers.map((n) => [n.sending_number_id, n]));
  return {
    from,
    to,
    numbers: ids.map((id) => {
      const n = byId.get(id) ?? { sending_number_id: id, sent: 0, delivered: 0, failed: 0 };
      const mine = errors.filter((e) => e.sending_number_id === id);
      const classes = new Map<string | null, number>();
      for (const e of mine) classes.set(e.class, (classes.get(e.class) ?? 0) + e.count);
      return {
        sendingNumberId: id === '' ? null : id,
        number: e164.get(id) ?? null,
        sent: n.sent,
        delivered: n.delivered,
        deliveredPercent: n.sent > 0 ? Math.round((n.delivered / n.sent) * 10_000) / 100 : null,
        failed: n.failed,
        failuresByCode: mine.map((e) => ({ code: e.code === '' ? null : e.code, class: e.class, count: e.count })),
        failuresByClass: [...classes].map(([cls, count]) => ({ class: cls, count })),
      };
    }),
  };
}

export async function openings(deps: Deps, organizationId: string, profileName: string): Promise<OpeningsReply> {
  const profile = await requireProfile(deps.db, organizationId, profileName);
  const configured = parseVariants(profile.opening_variants);
  await foldOrganization(deps.db, organizationId);
  const rows = await repo.sumVariants(deps.db, organizationId, profile.name);
  const seen = new Map(rows.map((r) => [r.variant, r]));
  const names = [
    ...configured.map((v) => v.name),
    ...rows.map((r) => r.variant).filter((v) => !configured.some((c) => c.name === v)),
  ];
  const variants = names.map((name) => {
    const r = seen.get(name) ?? { variant: name, sent: 0, replied: 0, qualified: 0, booked: 0, opted_out: 0 };
    return {
      variant: name,
      weight: configured.find((c) => c.name === name)?.weight ?? null,
      sent: r.sent,
      replied: r.replied,
      qualified: r.qualified,
      booked: r.booked,
      optedOut: r.opted_out,
      rates: {
        replied: wilson(r.replied, r.sent),
        qualified: wilson(r.qualified, r.sent),
        booked: wilson(r.booked, r.sent),
        optedOut: wilson(r.opted_out, r.sent),
      },
    };
  });
  const ranked = variants
    .filter((v) => v.sent > 0)
    .sort((a, b) => (b.rates.replied.rate ?? 0) - (a.rates.replied.rate ?? 0));
  const leader = ranked[0] ?? null;
  const significant =
    leader !== null && ranked.length > 1 && ranked.slice(1).every((v) => apart(leader.rates.replied, v.rates.replied));
  return { profile: profile.name, variants, significant, leader: leader?.variant ?? null };
}

const pct = (p: Percentiles, k: 'p50' | 'p90' | 'p95') => (p[k] === null ? '' : String(p[k]));

export function summaryCsv(r: SummaryReply): string {
  const head = [
    'group',
    'leads',
    'contacted',
    'delivered',
    'replied',
    'hot',
    'qualified',
    'booked',
    'optedOut',
    'failed',
    'firstSendCount',
    'firstSendP50Ms',
    'firstSendP90Ms',
    'firstSendP95Ms',
    'firstDeliveryCount',
    'firstDeliveryP50Ms',
    'firstDeliveryP90Ms',
    'firstDeliveryP95Ms',
  ];
  const line = (key: string, f: Funnel) =>
    csvLine([
      key,
      ...[f.leads, f.contacted, f.delivered, f.replied, f.hot, f.qualified, f.booked, f.optedOut, f.failed].map(String),
      String(f.speedToLead.firstSend.count),
      pct(f.speedToLead.firstSend, 'p50'),
      pct(f.speedToLead.firstSend, 'p90'),
      pct(f.speedToLead.firstSend, 'p95'),
      String(f.speedToLead.firstDelivery.count),
      pct(f.speedToLead.firstDelivery, 'p50'),
      pct(f.speedToLead.firstDelivery, 'p90'),
      pct(f.speedToLead.firstDelivery, 'p95'),
    ]);
  return csvLine(head) + r.groups.map((g) => line(g.key ?? '(none)', g)).join('') + line('(total)', r.total);
}

/**
 * One column per error class, in the table's order (deliverability/error-codes.ts), so a spreadsheet's
 * columns stay put whichever classes a period holds; `failed_none` counts failures recorded without a code.
 */
const CLASS_COLUMNS = [...ERROR_CLASSES, null] as const;

export function deliverabilityCsv(r: DeliverabilityReply): string {
  return (
    csvLine([
      'sendingNumberId',
      'number',
      'sent',
      'delivered',
      'deliveredPercent',
      'failed',
      ...CLASS_COLUMNS.map((c) => `failed_${c ?? 'none'}`),
      'failuresByCode',
    ]) +
    r.numbers
      .map((n) =>
        csvLine([
          n.sendingNumberId ?? '(own number)',
          n.number,
          String(n.sent),
          String(n.delivered),
          n.deliveredPercent === null ? '' : String(n.deliveredPercent),
          String(n.failed),
          ...CLASS_COLUMNS.map((c) => String(n.failuresByClass.find((f) => f.class === c)?.count ?? 0)),
          n.failuresByCode.map((f) => `${f.code ?? 'none'}=${f.count}`).join(' '),
        ]),
      )
      .join('')
  );
}

export function openingsCsv(r: OpeningsReply): string {
  const rate = (x: { rate: number | null }) => (x.rate === null ? '' : String(x.rate));
  return (
    csvLine([
      'variant',
      'weight',
      'sent',
      'replied',
      'qualified',
      'booked',
      'optedOut',
      'repliedRate',
      'repliedLow',
      'repliedHigh',
    ]) +
    r.variants
      .map((v) =>
        csvLine([
          v.variant,
          v.weight === null ? '' : String(v.weight),
          String(v.sent),
          String(v.replied),
          String(v.qualified),
          String(v.booked),
          String(v.optedOut),
          rate(v.rates.replied),
          v.rates.replied.low === null ? '' : String(v.rates.replied.low),
          v.rates.replied.high === null ? '' : String(v.rates.replied.high),
        ]),
      )
      .join('')
  );
}
