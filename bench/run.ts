/**
 * `npm run bench`: starts the real server (compiled, `parley serve`) and the
 * reference servers as their own processes, drives them with autocannon from
 * this process over 127.0.0.1, and reports every figure as a ratio to a
 * reference measured in the same run (absolute numbers drift 10-25 % on
 * shared machines). Writes bench/results/<time>.json.
 *
 *   npm run bench                 full run (SQLite; PostgreSQL too when reachable)
 *   npm run bench -- --quick      short durations, smaller data (a smoke run)
 *   npm run bench -- --only speed speed to lead alone (both dialects; --no-pg for SQLite only)
 *   npm run bench -- --only voice live-call latency alone (both dialects)
 *   npm run bench -- --only start `npm start` to the first answer, with a current build
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { printTable, type Row } from './lib/table.js';
import { deliverySection } from './sections/delivery.js';
import { httpSection } from './sections/http.js';
import { scaleSection } from './sections/scale.js';
import { pacingSection } from './sections/pacing.js';
import { importSection } from './sections/import.js';
import { secureDeleteSection } from './sections/secure-delete.js';
import { speedSection } from './sections/speed.js';
import { startSection } from './sections/start.js';
import { voiceSection } from './sections/voice.js';
import { analyticsSection } from './sections/analytics.js';
import { analyticsWritesSection } from './sections/analytics-writes.js';
import { seed, type SeedResult } from './seed.js';
import { runStamp } from './lib/profile.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    fresh: { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-pg': { type: 'boolean', default: false },
  },
});
export const quick = args.quick!;
const DATA = 'bench/data';
mkdirSync(DATA, { recursive: true });
mkdirSync('bench/results', { recursive: true });

/** Seeds are cached between runs (read-only use); write benchmarks get a fresh copy. */
async function cachedSeed(
  name: string,
  databaseUrl: string,
  leads: number,
  messages: number,
  fresh = false,
): Promise<SeedResult> {
  const meta = `${DATA}/${name}.json`;
  const file = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice(7) : undefined;
  if (!fresh && !args.fresh && existsSync(meta) && (!file || existsSync(file)))
    return JSON.parse(readFileSync(meta, 'utf8')) as SeedResult;
  if (file) for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
  process.stdout.write(`seeding ${name}: ${leads} leads, ${messages} history messages ... `);
  const r = await seed(databaseUrl, leads, messages);
  console.log(`${r.seconds.toFixed(1)} s`);
  writeFileSync(meta, JSON.stringify(r));
  return r;
}

async function pgDatabase(name: string, keep = false): Promise<string | undefined> {
  if (args['no-pg']) return undefined;
  const admin = new pg.Client({
    connectionString: 'postgres://postgres@127.0.0.1:5432/postgres',
    connectionTimeoutMillis: 2000,
  });
  try {
    await admin.connect();
    const exists = (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount! > 0;
    if (keep && exists) return `postgres://postgres@127.0.0.1:5432/${name}`;
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
    return `postgres://postgres@127.0.0.1:5432/${name}`;
  } catch {
    return undefined;
  } finally {
    await admin.end().catch(() => {});
  }
}

const rows: Row[] = [];
const raw: Record<string, unknown> = {};
const want = (s: string) => !args.only || args.only.split(',').includes(s);

if (want('http')) {
  const db = `sqlite:${DATA}/http.db`;
  const s = await cachedSeed('http', db, quick ? 20_000 : 100_000, 100, true);
  const r = await httpSection('sqlite', db, s, quick);
  rows.push(...r.rows);
  raw.httpSqlite = r.raw;
}
if (want('scale')) {
  const small = await cachedSeed('small', `sqlite:${DATA}/small.db`, 10_000, 100);
  const bigLeads = quick ? 200_000 : 1_000_000;
  const big = await cachedSeed(
    quick ? 'medium' : 'large',
    `sqlite:${DATA}/${quick ? 'medium' : 'large'}.db`,
    bigLeads,
    quick ? 20_000 : 100_000,
  );
  const r = await scaleSection(
    `sqlite:${DATA}/small.db`,
    small,
    `sqlite:${DATA}/${quick ? 'medium' : 'large'}.db`,
    big,
    bigLeads,
    quick,
  );
  rows.push(...r.rows);
  raw.scale = r.raw;
}
if (want('delivery')) {
  const r = await deliverySection('sqlite', `sqlite:${DATA}/delivery.db`, quick);
  rows.push(...r.rows);
  raw.deliverySqlite = r.raw;
}
const pgHttp = want('pg') ? await pgDatabase('parley_bench_http') : undefined;
if (pgHttp) {
  const s = await seed(pgHttp, quick ? 20_000 : 100_000, 100);
  const r = await httpSection('postgres', pgHttp, s, quick);
  rows.push(...r.rows);
  raw.httpPostgres = r.raw;
  const pgDelivery = await pgDatabase('parley_bench_delivery');
  if (pgDelivery) {
    const d = await deliverySection('postgres', pgDelivery, quick);
    rows.push(...d.rows);
    raw.deliveryPostgres = d.raw;
  }
  if (want('scale')) {
    // Flat cost and memory at 1M leads on PostgreSQL too (issue 14: peak RSS under 256 MB on both dialects).
    const bigLeads = quick ? 200_000 : 1_000_000;
    const smallUrl = (await pgDatabase('parley_bench_small'))!;
    const bigUrl = (await pgDatabase('parley_bench_large'))!;
    process.stdout.write(`seeding PostgreSQL: 10000 and ${bigLeads} leads ... `);
    const small = await seed(smallUrl, 10_000, 100);
    const big = await seed(bigUrl, bigLeads, quick ? 20_000 : 100_000);
    console.log(`${(small.seconds + big.seconds).toFixed(1)} s`);
    const r = await scaleSection(smallUrl, small, bigUrl, big, bigLeads, quick, 'postgres');
    rows.push(...r.rows);
    raw.scalePostgres = r.raw;
  }
} else if (want('pg')) {
  console.log('PostgreSQL not reachable (or --no-pg): PostgreSQL rows skipped.');
}
if (want('pacing')) {
  // Pacing across processes needs PostgreSQL (SQLite runs one worker).
  const pgPacing = await pgDatabase('parley_bench_pacing');
  if (pgPacing) {
    const r = await pacingSection(pgPacing, quick);
    rows.push(...r.rows);
    raw.pacingPostgres = r.raw;
  } else console.log('PostgreSQL not reachable (or --no-pg): pacing rows skipped.');
}

if (want('speed')) {
  // Speed to lead: fresh databases each run (the counts want an empty queue).
  for (const f of ['speed.db', 'speed-count.db'])
    for (const x of ['', '-wal', '-shm']) rmSync(`${DATA}/${f}${x}`, { force: true });
  const r = await speedSection('sqlite', `sqlite:${DATA}/speed.db`, `sqlite:${DATA}/speed-count.db`, quick);
  rows.push(...r.rows);
  raw.speedSqlite = r.raw;
  const pgSpeed = await pgDatabase('parley_bench_speed');
  const pgCount = pgSpeed ? await pgDatabase('parley_bench_speed_count') : undefined;
  if (pgSpeed && pgCount) {
    const p = await speedSection('postgres', pgSpeed, pgCount, quick);
    rows.push(...p.rows);
    raw.speedPostgres = p.raw;
  } else console.log('PostgreSQL not reachable (or --no-pg): speed-to-lead PostgreSQL rows skipped.');
}

if (want('voice')) {
  // Live calls: prompt to first text token beyond the model's own first-token time (issue 29).
  for (const x of ['', '-wal', '-shm']) rmSync(`${DATA}/voice.db${x}`, { force: true });
  const r = await voiceSection('sqlite', `sqlite:${DATA}/voice.db`, quick);
  rows.push(...r.rows);
  raw.voiceSqlite = r.raw;
  const pgVoice = await pgDatabase('parley_bench_voice');
  if (pgVoice) {
    const p = await voiceSection('postgres', pgVoice, quick);
    rows.push(...p.rows);
    raw.voicePostgres = p.raw;
  } else console.log('PostgreSQL not reachable (or --no-pg): voice PostgreSQL rows skipped.');
}

if (want('import')) {
  // BENCH_IMPORT_ROWS overrides the size (a smoke run: BENCH_IMPORT_ROWS=20000 npm run bench -- --only import).
  const cli = await pgDatabase('parley_bench_import');
  const reference = cli ? await pgDatabase('parley_bench_import_ref') : undefined;
  const r = await importSection(
    quick,
    cli && reference ? { cli, reference } : undefined,
    process.env.BENCH_IMPORT_ROWS ? Number(process.env.BENCH_IMPORT_ROWS) : undefined,
  );
  rows.push(...r.rows);
  raw.import = r.raw;
}

if (want('analytics')) {
  // Analytics reads at 1M leads / 10M messages (BENCH_ANALYTICS_LEADS overrides the size); fresh databases each run.
  const size = process.env.BENCH_ANALYTICS_LEADS ? Number(process.env.BENCH_ANALYTICS_LEADS) : undefined;
  if (process.env.BENCH_ANALYTICS_PG_ONLY !== '1') {
    if (process.env.BENCH_ANALYTICS_REUSE !== '1')
      for (const x of ['', '-wal', '-shm']) rmSync(`${DATA}/analytics.db${x}`, { force: true });
    const r = await analyticsSection('sqlite', `sqlite:${DATA}/analytics.db`, quick, size);
    rows.push(...r.rows);
    raw.analyticsSqlite = r.raw;
  }
  const pgAnalytics = args['no-pg']
    ? undefined
    : await pgDatabase('parley_bench_analytics', process.env.BENCH_ANALYTICS_REUSE === '1');
  if (pgAnalytics) {
    const p = await analyticsSection('postgres', pgAnalytics, quick, size);
    rows.push(...p.rows);
    raw.analyticsPostgres = p.raw;
  } else console.log('PostgreSQL not reachable (or --no-pg): analytics PostgreSQL rows skipped.');
}

if (want('analytics-writes')) {
  // What the rollups add to the writes that carry them: the same transactions with and without.
  for (const x of ['', '-wal', '-shm']) rmSync(`${DATA}/analytics-writes.db${x}`, { force: true });
  const r = await analyticsWritesSection('sqlite', `sqlite:${DATA}/analytics-writes.db`, quick);
  rows.push(...r.rows);
  raw.analyticsWritesSqlite = r.raw;
  const pgWrites = await pgDatabase('parley_bench_analytics_writes');
  if (pgWrites) {
    const p = await analyticsWritesSection('postgres', pgWrites, quick);
    rows.push(...p.rows);
    raw.analyticsWritesPostgres = p.raw;
  }
}

if (want('start')) {
  const r = await startSection(`${DATA}/start.db`, quick);
  rows.push(...r.rows);
  raw.start = r.raw;
}

if (want('secure-delete')) {
  const r = await secureDeleteSection(quick);
  rows.push(...r.rows);
  raw.secureDelete = r.raw;
}

const machine = {
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  memoryGb: Math.round(totalmem() / 2 ** 30),
  node: process.version,
};
const table = printTable(rows);
console.log(
  `\nParley benchmark (${quick ? 'quick' : 'full'}), ${machine.cpus} cores ${machine.cpuModel}, ${machine.memoryGb} GiB, Node ${machine.node}\n`,
);
console.log(table);
const file = `bench/results/${runStamp}.json`;
writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), quick, machine, rows, raw }, null, 2));
console.log(`\nresults: ${file}`);
const missed = rows.filter((r) => r.met === false);
if (missed.length) console.log(`targets not met: ${missed.map((r) => `${r.section}/${r.measure}`).join(', ')}`);
if (missed.length)
  console.log(
    'Each missed target has a CPU profile summary under bench/results/ (see its row); bench/README.md explains the misses.',
  );
