import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { latencyBucket } from '../../src/analytics-records/latency.js';
import { cells, quarterOf, type Dims } from '../../src/analytics-records/recorder.repository.js';
import { insertRows } from '../../src/platform/db/arrays.js';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { openStore } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import type { Db } from '../../src/platform/db/schema.js';
import { freePort, startProcess, type Proc } from '../lib/processes.js';
import type { Row } from '../lib/table.js';

/**
 * Analytics reads (issue 31): GET /v1/analytics/summary and /deliverability at
 * 1M leads and 10M messages, p95 at most 200 ms on each dialect.
 *
 * The read path touches the rollup tables only (src/analytics/: no query of
 * leads or messages), so what a report costs depends on the rollups' rows, not
 * on the base tables. The section writes, straight into a fresh migrated
 * database, the rollup rows that a year of 1M leads and 10M messages makes
 * with the recorder's own key layout and bucket function: leads spread over
 * 365 days, 4 profiles, 20 campaigns of 3 numbers each plus 10 numbers
 * outside campaigns, 5 sources; 85 % contacted, 80 % delivered, 25 % replied,
 * ...; first-send latencies log-normal around 20 s, 10 messages a lead with 3 %
 * failing over 4 codes. The base tables stay empty (no query reads them).
 *
 * Measured: each request shape 200 times in sequence from this process over
 * 127.0.0.1 against `parley serve` (its own process, worker off), after 20 of
 * warm-up; the reference is the HTTP ceiling (bench/reference.ts's static
 * route) measured the same way in the same run: ratio = p95 / ceiling p95.
 */
const ORG = 'bench-analytics';
const DAYS = 365;
const START = Date.UTC(2026, 0, 1);
const PROFILES = ['default', 'buyers', 'sellers', 'renters'];
const SOURCES = ['api', 'inbound', 'import:a', 'import:b', 'import:c'];
const CAMPAIGNS = Array.from({ length: 20 }, (_, i) => `camp-${String(i).padStart(2, '0')}`);
const CODES = ['30007', '30003', '21610', '30034'];
const COUNTERS = ['leads', 'contacted', 'delivered', 'replied', 'hot', 'qualified', 'booked', 'opted_out', 'failed'];

/** A small deterministic generator (mulberry32): the same data on every run and dialect. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Rows per insert call: one statement on PostgreSQL (unnest), 500-row statements on SQLite, one transaction. */
const CHUNK = 20_000;

type Tables = {
  rollups: Map<string, number[]>;
  latency: Map<string, number>;
  numbers: Map<string, number[]>;
  errors: Map<string, number>;
};
const tables = (): Tables => ({ rollups: new Map(), latency: new Map(), numbers: new Map(), errors: new Map() });

/** What the leads of one day, on one combination of dimensions, add up to (the unit the rollups are made of). */
interface Combo {
  dims: Dims;
  counters: number[];
  latency: { sent: Map<number, number>; delivered: Map<number, number> };
}

/**
 * Writes the rollups of `leads` leads and `messages` messages, as the recorder
 * keeps them (src/analytics-records/recorder.repository.ts: the same `cells`, per
 * dimension a day row and a month row); answers the rows written per table.
 * The leads of a day are first added up per combination of dimensions (a few
 * hundred a day), then each combination is spread over its cells: what the
 * recorder's one-event-at-a-time upserts add up to, computed at once.
 */
export async function generate(db: Db, leads: number, messages: number): Promise<Record<string, number>> {
  const rand = rng(20261127);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const perDay = leads / DAYS;
  const messagesPerLead = messages / leads;
  const written = { rollups: 0, latency: 0, numbers: 0, errors: 0 };
  const SEP = '\u0000';
  const pending = { rollups: [] as never[], latency: [] as never[], numbers: [] as never[], errors: [] as never[] };
  const drain = async (all: boolean) => {
    for (const [name, table] of [
      ['rollups', 'analytics_rollups'],
      ['latency', 'analytics_latency'],
      ['numbers', 'analytics_numbers'],
      ['errors', 'analytics_errors'],
    ] as const) {
      const rows = pending[name];
      while (rows.length >= (all ? 1 : CHUNK)) {
        const part = rows.splice(0, CHUNK);
        await db.transaction().execute((trx) => insertRows(trx, table, part));
        written[name] += part.length;
      }
    }
  };
  const flush = async (t: Tables) => {
    const split = (k: string) => k.split(SEP);
    for (const [k, v] of t.rollups) {
      const [dim, period, value] = split(k);
      pending.rollups.push({
        organization_id: ORG,
        dim,
        period,
        value,
        ...Object.fromEntries(COUNTERS.map((c, i) => [c, v[i]])),
      } as never);
    }
    for (const [k, count] of t.latency) {
      const [dim, period, value, kind, bucket] = split(k);
      pending.latency.push({ organization_id: ORG, dim, period, value, kind, bucket: Number(bucket), count } as never);
    }
    for (const [k, [sent, delivered, failed]] of t.numbers) {
      const [period, num] = split(k);
      pending.numbers.push({ organization_id: ORG, period, sending_number_id: num, sent, delivered, failed } as never);
    }
    for (const [k, count] of t.errors) {
      const [period, num, code] = split(k);
      pending.errors.push({ organization_id: ORG, period, sending_number_id: num, code, class: null, count } as never);
    }
    await drain(false);
  };
  let month = '';
  let m = tables();
  let quarter = '';
  let q = tables();
  for (let d = 0; d < DAYS; d++) {
    const day = iso(START + d * 86_400_000);
    if (day.slice(0, 7) !== month) {
      if (month) await flush(m);
      month = day.slice(0, 7);
      m = tables();
    }
    if (quarterOf(day) !== quarter) {
      if (quarter) await flush(q);
      quarter = quarterOf(day);
      q = tables();
    }
    const t = tables();
    const combos = new Map<string, Combo>();
    const combo = (profile: string, campaign: string, number: string, source: string): Combo => {
      const k = `${profile}${SEP}${campaign}${SEP}${number}${SEP}${source}`;
      let c = combos.get(k);
      if (!c) {
        c = {
          dims: { day, profile, campaign_id: campaign, sending_number_id: number, source },
          counters: Array(COUNTERS.length).fill(0),
          latency: { sent: new Map(), delivered: new Map() },
        };
        combos.set(k, c);
      }
      return c;
    };
    const hist = (h: Map<number, number>, ms: number) => {
      const b = latencyBucket(ms);
      h.set(b, (h.get(b) ?? 0) + 1);
    };
    const n = Math.round(perDay * (0.5 + rand()));
    for (let i = 0; i < n; i++) {
      const inCampaign = rand() < 0.4;
      const c = Math.floor(rand() * CAMPAIGNS.length);
      const campaign = inCampaign ? CAMPAIGNS[c]! : '';
      const number = inCampaign ? `num-${c * 3 + Math.floor(rand() * 3)}` : `num-x${Math.floor(rand() * 10)}`;
      const profile = inCampaign ? PROFILES[c % PROFILES.length]! : pick(PROFILES);
      const source = pick(SOURCES);
      // A lead is created outside any campaign and number (the recorder's noteLeadsCreated); its first contact sets them.
      combo(profile, '', '', source).counters[0]! += 1;
      if (rand() >= 0.85) continue;
      const g = combo(profile, campaign, number, source);
      g.counters[1]! += 1;
      const sent = Math.exp(Math.log(20_000) + 1.2 * normal());
      hist(g.latency.sent, sent);
      if (rand() < 0.94) {
        g.counters[2]! += 1;
        hist(g.latency.delivered, sent + 1500 + 1000 * rand());
      }
      for (const [counter, p] of [
        [3, 0.25],
        [4, 0.08],
        [5, 0.06],
        [6, 0.03],
        [7, 0.04],
      ] as const)
        if (rand() < p) g.counters[counter]! += 1;
      const count = Math.round(messagesPerLead * (0.5 + rand()));
      for (let j = 0; j < count; j++) {
        const failed = rand() < 0.03;
        const code = failed ? pick(CODES) : '';
        if (failed) g.counters[8]! += 1;
        for (const [target, period] of [
          [t, day],
          [m, month],
          [q, quarter],
        ] as const) {
          const k = `${period}${SEP}${number}`;
          const nr = target.numbers.get(k) ?? [0, 0, 0];
          nr[0]! += 1;
          nr[failed ? 2 : 1]! += 1;
          target.numbers.set(k, nr);
          if (failed) target.errors.set(`${k}${SEP}${code}`, (target.errors.get(`${k}${SEP}${code}`) ?? 0) + 1);
        }
      }
    }
    // Each combination into the recorder's cells: day rows into the day's tables, month rows into the month's,
    // quarter rows into the quarter's.
    for (const g of combos.values()) {
      for (const [dim, period, value] of cells(g.dims)) {
        const target = period.length === 10 ? t : period === quarter ? q : m;
        const k = `${dim}${SEP}${period}${SEP}${value}`;
        const row = target.rollups.get(k) ?? Array(COUNTERS.length).fill(0);
        for (let i = 0; i < COUNTERS.length; i++) row[i] += g.counters[i]!;
        target.rollups.set(k, row);
        for (const kind of ['sent', 'delivered'] as const)
          for (const [bucket, count] of g.latency[kind]) {
            const lk = `${k}${SEP}${kind}${SEP}${bucket}`;
            target.latency.set(lk, (target.latency.get(lk) ?? 0) + count);
          }
      }
    }
    await flush(t);
  }
  await flush(m);
  await flush(q);
  await drain(true);
  return written;
}

async function p95Of(
  url: string,
  headers: Record<string, string>,
  times: number,
): Promise<{ p50: number; p95: number; bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  const warm = Number(process.env.BENCH_ANALYTICS_WARMUP ?? 20);
  for (let i = 0; i < warm + times; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${Buffer.from(body).toString()}`);
    if (i >= warm) ms.push(performance.now() - t);
    bytes = body.byteLength;
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ms.length * 0.5)]!, p95: ms[Math.ceil(ms.length * 0.95) - 1]!, bytes };
}

/**
 * A year by day with none of its days' percentiles kept (analytics/day-percentiles.repository.ts): the cost
 * of the first such report, which the warmed p95 below does not show. In use a fold changes the days it
 * counts (today, mostly), so a report recomputes those; here all 365 days are computed, the worst case.
 * The slowest of three, each after the kept rows are deleted.
 */
async function coldYearByDay(
  databaseUrl: string,
  base: string,
  key: string,
  section: string,
  ceiling: number,
): Promise<Row> {
  const store = openStore(databaseUrl);
  let worst = 0;
  try {
    for (let i = 0; i < 3; i++) {
      await store.db.deleteFrom('analytics_day_percentiles').where('organization_id', '=', ORG).execute();
      const t = performance.now();
      const res = await fetch(`${base}/v1/analytics/summary?from=2026-01-01&to=2026-12-31&groupBy=day`, {
        headers: { 'x-api-key': key },
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`cold year by day: ${res.status}`);
      worst = Math.max(worst, performance.now() - t);
    }
  } finally {
    await store.close();
  }
  return {
    section,
    measure: 'summary, year by day, no day kept: slowest of 3 (ms)',
    value: worst.toFixed(1),
    reference: ceiling.toFixed(2),
    ratio: `${(worst / ceiling).toFixed(1)}x`,
    target: '<= 200 ms',
    met: worst <= 200,
  };
}

export async function analyticsSection(
  dialect: 'sqlite' | 'postgres',
  databaseUrl: string,
  quick: boolean,
  leads = quick ? 100_000 : 1_000_000,
  messages = leads * 10,
) {
  const section = `analytics-${dialect}`;
  const store = openStore(databaseUrl);
  await migrateToLatest(store);
  // BENCH_ANALYTICS_REUSE=1: measure the rollups an earlier run left (generating 1M leads' takes minutes).
  const reuse =
    process.env.BENCH_ANALYTICS_REUSE === '1' &&
    (await store.db.selectFrom('organizations').select('id').where('id', '=', ORG).executeTakeFirst()) !== undefined;
  if (!reuse)
    await store.db
      .insertInto('organizations')
      .values({ id: ORG, name: ORG, settings: '{}', created_at: new Date().toISOString() })
      .execute();
  const key = (await issueKey(store.db, ORG, ['analytics:read'])).key;
  const started = performance.now();
  const written = reuse ? { reused: 1 } : await generate(store.db, leads, messages);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `${section}: ${reuse ? 'reused' : 'wrote'} the rollups of ${leads} leads and ${messages} messages in ${seconds.toFixed(1)} s: ${JSON.stringify(written)}`,
  );
  // What autovacuum does to a table that took inserts (PostgreSQL 13+ vacuums on inserts too): statistics, and
  // the visibility map that lets a report's read be an index-only scan. Measured without it, a year by sending
  // number read its 148k month rows through the heap (bitmap heap scan) and took 220 ms instead of 122 ms.
  if (dialect === 'postgres') await sql`vacuum analyze`.execute(store.db);
  await store.close();

  const procs: Proc[] = [];
  const rows: Row[] = [];
  const raw: Record<string, unknown> = { leads, messages, written, seconds };
  try {
    const port = await freePort();
    const parley = await startProcess(
      'node',
      ['--import', 'tsx', 'src/cli/main.ts', 'serve'],
      {
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        PARLEY_RATE_LIMIT: '0',
        PARLEY_WORKER: 'false',
      },
      port,
      '/readyz',
      // A loaded machine compiles and migrates slowly: wait up to five minutes for the server.
      300_000,
    );
    procs.push(parley);
    const refPort = await freePort();
    const ref = await startProcess(
      'node',
      ['--import', 'tsx', 'bench/reference.ts', String(refPort), databaseUrl, ORG],
      {},
      refPort,
      '/static',
    );
    procs.push(ref);
    const times = Number(process.env.BENCH_ANALYTICS_TIMES ?? (quick ? 60 : 200));
    const ceiling = await p95Of(`http://127.0.0.1:${refPort}/static`, {}, times);
    raw.ceiling = ceiling;
    const shapes: [string, string][] = [
      ['summary, 30 days by day', '/v1/analytics/summary?from=2026-06-01&to=2026-06-30&groupBy=day'],
      [
        'summary, 30 days by sendingNumber',
        '/v1/analytics/summary?from=2026-06-01&to=2026-06-30&groupBy=sendingNumber',
      ],
      ['summary, year by day', '/v1/analytics/summary?from=2026-01-01&to=2026-12-31&groupBy=day'],
      ['summary, year by campaign', '/v1/analytics/summary?from=2026-01-01&to=2026-12-31&groupBy=campaign'],
      ['summary, year by profile', '/v1/analytics/summary?from=2026-01-01&to=2026-12-31&groupBy=profile'],
      ['summary, year by sendingNumber', '/v1/analytics/summary?from=2026-01-01&to=2026-12-31&groupBy=sendingNumber'],
      ['summary, year by source', '/v1/analytics/summary?from=2026-01-01&to=2026-12-31&groupBy=source'],
      [
        'summary, 100 days by source (partial months)',
        '/v1/analytics/summary?from=2026-03-15&to=2026-06-22&groupBy=source',
      ],
      ['deliverability, 30 days', '/v1/analytics/deliverability?from=2026-06-01&to=2026-06-30'],
      ['deliverability, year', '/v1/analytics/deliverability?from=2026-01-01&to=2026-12-31'],
    ];
    rows.push(await coldYearByDay(databaseUrl, `http://127.0.0.1:${port}`, key, section, ceiling.p95));
    for (const [name, path] of shapes) {
      const r = await p95Of(`http://127.0.0.1:${port}${path}`, { 'x-api-key': key }, times);
      raw[name] = r;
      rows.push({
        section,
        measure: `${name}: p95 (ms)`,
        value: r.p95.toFixed(1),
        reference: ceiling.p95.toFixed(2),
        ratio: `${(r.p95 / ceiling.p95).toFixed(1)}x`,
        target: '<= 200 ms',
        met: r.p95 <= 200,
      });
    }
  } finally {
    for (const p of procs) await p.stop();
  }
  return { rows, raw };
}
