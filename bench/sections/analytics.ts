import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { latencyBucket } from '../../src/analytics/latency.js';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { openStore } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import type { Database, Db } from '../../src/platform/db/schema.js';
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

async function insertChunks(db: Db, table: keyof Database, rows: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 400)
    await db
      .insertInto(table)
      .values(rows.slice(i, i + 400) as never)
      .execute();
}

/**
 * Writes the rollups of `leads` leads and `messages` messages, as the recorder
 * keeps them (src/analytics/recorder.repository.ts: per dimension, per day and
 * month); answers the rows written per table.
 */
export async function generate(db: Db, leads: number, messages: number): Promise<Record<string, number>> {
  const rand = rng(20261127);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  const perDay = leads / DAYS;
  const messagesPerLead = messages / leads;
  const written = { rollups: 0, latency: 0, numbers: 0, errors: 0 };
  const SEP = '\u0000';
  // Month rows accumulate over the month; day rows are written at the end of each day.
  let month = '';
  let m = {
    rollups: new Map<string, number[]>(),
    latency: new Map<string, number>(),
    numbers: new Map<string, number[]>(),
    errors: new Map<string, number>(),
  };
  const flush = async (t: typeof m) => {
    const split = (k: string) => k.split(SEP);
    const rollups = [...t.rollups].map(([k, v]) => {
      const [dim, period, value] = split(k);
      return { organization_id: ORG, dim, period, value, ...Object.fromEntries(COUNTERS.map((c, i) => [c, v[i]])) };
    });
    const latency = [...t.latency].map(([k, count]) => {
      const [dim, period, value, kind, bucket] = split(k);
      return { organization_id: ORG, dim, period, value, kind, bucket: Number(bucket), count };
    });
    const numbers = [...t.numbers].map(([k, [sent, delivered, failed]]) => {
      const [period, num] = split(k);
      return { organization_id: ORG, period, sending_number_id: num, sent, delivered, failed };
    });
    const errors = [...t.errors].map(([k, count]) => {
      const [period, num, code] = split(k);
      return { organization_id: ORG, period, sending_number_id: num, code, class: null, count };
    });
    await insertChunks(db, 'analytics_rollups', rollups);
    await insertChunks(db, 'analytics_latency', latency);
    await insertChunks(db, 'analytics_numbers', numbers);
    await insertChunks(db, 'analytics_errors', errors);
    written.rollups += rollups.length;
    written.latency += latency.length;
    written.numbers += numbers.length;
    written.errors += errors.length;
  };
  for (let d = 0; d < DAYS; d++) {
    const day = iso(START + d * 86_400_000);
    if (day.slice(0, 7) !== month) {
      if (month) await flush(m);
      month = day.slice(0, 7);
      m = { rollups: new Map(), latency: new Map(), numbers: new Map(), errors: new Map() };
    }
    const t = {
      rollups: new Map<string, number[]>(),
      latency: new Map<string, number>(),
      numbers: new Map<string, number[]>(),
      errors: new Map<string, number>(),
    };
    const n = Math.round(perDay * (0.5 + rand()));
    for (let i = 0; i < n; i++) {
      const inCampaign = rand() < 0.4;
      const c = Math.floor(rand() * CAMPAIGNS.length);
      const campaign = inCampaign ? CAMPAIGNS[c]! : '';
      const number = inCampaign ? `num-${c * 3 + Math.floor(rand() * 3)}` : `num-x${Math.floor(rand() * 10)}`;
      const profile = inCampaign ? PROFILES[c % PROFILES.length]! : pick(PROFILES);
      const source = pick(SOURCES);
      // The recorder's nine cells of an event: the day overall; each dimension by day and by month.
      const cells = (camp: string, num: string) =>
        [
          [t, `day${SEP}${day}${SEP}`],
          ...(
            [
              ['profile', profile],
              ['campaign', camp],
              ['sendingNumber', num],
              ['source', source],
            ] as const
          ).flatMap(([dim, value]) => [
            [t, `${dim}${SEP}${day}${SEP}${value}`],
            [m, `${dim}${SEP}${month}${SEP}${value}`],
          ]),
        ] as [typeof t, string][];
      const bump = (camp: string, num: string, counter: number) => {
        for (const [target, k] of cells(camp, num)) {
          const row = target.rollups.get(k) ?? Array(9).fill(0);
          row[counter] += 1;
          target.rollups.set(k, row);
        }
      };
      bump('', '', 0);
      if (rand() >= 0.85) continue;
      bump(campaign, number, 1);
      const sent = Math.exp(Math.log(20_000) + 1.2 * normal());
      const delivered = rand() < 0.94;
      if (delivered) bump(campaign, number, 2);
      for (const [kind, ms] of [['sent', sent], ...(delivered ? [['delivered', sent + 1500 + 1000 * rand()]] : [])] as [
        string,
        number,
      ][]) {
        const b = latencyBucket(ms);
        for (const [target, k] of cells(campaign, number)) {
          const key = `${k}${SEP}${kind}${SEP}${b}`;
          target.latency.set(key, (target.latency.get(key) ?? 0) + 1);
        }
      }
      if (rand() < 0.25) bump(campaign, number, 3);
      if (rand() < 0.08) bump(campaign, number, 4);
      if (rand() < 0.06) bump(campaign, number, 5);
      if (rand() < 0.03) bump(campaign, number, 6);
      if (rand() < 0.04) bump(campaign, number, 7);
      const count = Math.round(messagesPerLead * (0.5 + rand()));
      for (let j = 0; j < count; j++) {
        const failed = rand() < 0.03;
        const code = failed ? pick(CODES) : '';
        if (failed) bump(campaign, number, 8);
        for (const [target, period] of [
          [t, day],
          [m, month],
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
    await flush(t);
  }
  await flush(m);
  return written;
}

async function p95Of(
  url: string,
  headers: Record<string, string>,
  times: number,
): Promise<{ p50: number; p95: number; bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 20 + times; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${Buffer.from(body).toString()}`);
    if (i >= 20) ms.push(performance.now() - t);
    bytes = body.byteLength;
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ms.length * 0.5)]!, p95: ms[Math.ceil(ms.length * 0.95) - 1]!, bytes };
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
  if (dialect === 'postgres') await sql`analyze`.execute(store.db);
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
      [
        'summary, 100 days by source (partial months)',
        '/v1/analytics/summary?from=2026-03-15&to=2026-06-22&groupBy=source',
      ],
      ['deliverability, 30 days', '/v1/analytics/deliverability?from=2026-06-01&to=2026-06-30'],
      ['deliverability, year', '/v1/analytics/deliverability?from=2026-01-01&to=2026-12-31'],
    ];
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
