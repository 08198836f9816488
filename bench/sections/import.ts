import { execFile, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import type { Row } from '../lib/table.js';
import { RESET_AT_FRAMES, SQLITE_BULK_PRAGMAS } from '../../src/platform/db/bulk.js';
import { startWalCheckpointer } from '../../src/platform/db/wal-checkpointer.js';

/**
 * CSV import (issue 15): the real CLI (`parley import leads`, a child process,
 * its peak RSS from /usr/bin/time) into a fresh SQLite file and a fresh
 * PostgreSQL database, against a reference measured in the same run: a bare
 * batched INSERT of the same rows into the same leads table (migrated the same
 * way, same durability: WAL + synchronous=FULL, 2000 rows per transaction, the same
 * bulk settings on SQLite, checkpoints on a thread included: platform/db/bulk.ts), with
 * no parsing, validation, dedupe or opt-out lookups. 2 % of the rows are dirty
 * (rejected), 1 % repeat an earlier row (merged).
 */
const DATA = 'bench/data';
const BATCH = 2000;

interface Generated {
  path: string;
  rows: number;
}

/** A deterministic CSV: phones and emails in scrambled order (index inserts land all over the trees, as with real data). */
async function generate(rows: number): Promise<Generated> {
  const path = `${DATA}/import-${rows}.csv`;
  const out = createWriteStream(path);
  const write = (s: string) =>
    out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r()));
  await write('First Name,Last Name,Mobile Phone,Email,Time Zone,Company,Notes\n');
  const N = 7_000_003; // prime: i -> i * K mod N is a permutation
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    const k = i % 100 === 99 ? i - 50 : i; // 1 %: the row of 50 earlier again
    const n = (k * 1_234_567) % N;
    const phone = `+1415${String(2_000_000 + n).padStart(7, '0')}`;
    let line = `First${k},Last${k},${phone},user${n}@example.com,America/Chicago,"Company ${k % 1000}, Inc",note ${k % 7}\n`;
    if (i % 50 === 25)
      line = i % 100 === 25 ? `Bad${k},,12,,,,\n` : `Zone${k},,${phone.replace('+1415', '+1416')},,Mars/Base,,\n`;
    chunk += line;
    if (chunk.length > 1 << 16) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  await new Promise<void>((r) => out.end(() => r()));
  return { path, rows };
}

function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/parley.js', ...args],
      { env: { ...process.env, LOG_LEVEL: 'warn', ...env }, maxBuffer: 1 << 26 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The real CLI under /usr/bin/time: seconds and peak RSS (MB). */
async function cliImport(
  databaseUrl: string,
  csv: string,
): Promise<{ seconds: number; cpuSeconds: number; rssMb: number; summary: string }> {
  const env = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' };
  const keys = await run(['keys', 'create', '--org', 'bench-import'], env);
  if (keys.code !== 0) throw new Error(`keys create failed: ${keys.stderr}`);
  const started = Date.now();
  const child = spawn(
    '/usr/bin/time',
    ['-f', 'RSS_KB=%M CPU_S=%U+%S', process.execPath, 'bin/parley.js', 'import', 'leads', csv, '--org', 'bench-import'],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number>((r) => child.on('exit', (c) => r(c ?? 1)));
  const seconds = (Date.now() - started) / 1000;
  if (code !== 0) throw new Error(`import failed (${code}): ${stderr}`);
  const kb = Number(/RSS_KB=(\d+)/.exec(stderr)?.[1] ?? 0);
  const cpu = /CPU_S=([\d.]+)\+([\d.]+)/.exec(stderr);
  const cpuSeconds = cpu ? Number(cpu[1]) + Number(cpu[2]) : NaN;
  const summary = stdout
    .split('\n')
    .filter((l) => /^(import completed|created)/.test(l))
    .join('; ');
  return { seconds, cpuSeconds, rssMb: Math.round(kb / 1024), summary };
}

/** The rows as the reference inserts them: naive comma split (the generated quoting is only in Company). */
async function* rowsOf(csv: string): AsyncGenerator<string[]> {
  const lines = createInterface({ input: createReadStream(csv), crlfDelay: Infinity });
  let first = true;
  for await (const line of lines) {
    if (first) {
      first = false;
      continue;
    }
    if (line) yield line.split(',');
  }
}

const COLUMNS = [
  'organization_id',
  'id',
  'first_name',
  'last_name',
  'phone',
  'email',
  'customer_profile',
  'time_zone',
  'external_lead_id',
  'additional_info',
  'has_replied',
  'is_hot',
  'is_qualified',
  'is_ai_on',
  'sms_status',
  'voice_status',
  'email_status',
  'created_at',
  'updated_at',
];
let seq = 0;
const leadValues = (r: string[], at: string, org: string) => {
  seq += 1;
  // A distinct phone per row (the reference has no dedupe; the unique index must not refuse a repeat).
  const id = `00000000-0000-7000-8000-${String(seq).padStart(12, '0')}`;
  return [
    org,
    id,
    r[0] ?? '',
    r[1] ?? '',
    `${r[2]}-${seq}`,
    r[3] || null,
    'default',
    r[4] || null,
    null,
    '{}',
    0,
    0,
    0,
    1,
    'subscribed',
    'subscribed',
    'subscribed',
    at,
    at,
  ];
};

async function referenceSqlite(url: string, csv: string): Promise<number> {
  const path = url.slice('sqlite:'.length);
  const db = new SqliteDatabase(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  // The settings the command gives its own connection, so the ratio shows the import's own cost.
  for (const [name, value] of Object.entries(SQLITE_BULK_PRAGMAS)) db.pragma(`${name} = ${value}`);
  const org = (db.prepare("select id from organizations where name = 'bench-ref'").get() as { id: string }).id;
  const insert = db.prepare(`insert into leads (${COLUMNS.join(',')}) values (${COLUMNS.map(() => '?').join(',')})`);
  const transaction = db.transaction((batch: unknown[][]) => {
    for (const v of batch) insert.run(v);
  });
  const ckpt = startWalCheckpointer({
    file: path,
    resetAtFrames: RESET_AT_FRAMES,
    checkpointHere: () => db.pragma('wal_checkpoint(PASSIVE)'),
  });
  const many = async (batch: unknown[][]) => {
    transaction(batch);
    await ckpt.committed();
  };
  const at = new Date().toISOString();
  const started = Date.now();
  let n = 0;
  let batch: unknown[][] = [];
  for await (const r of rowsOf(csv)) {
    batch.push(leadValues(r, at, org));
    if (batch.length === BATCH) {
      await many(batch);
      n += batch.length;
      batch = [];
    }
  }
  await many(batch);
  n += batch.length;
  await ckpt.close();
  db.close();
  return n / ((Date.now() - started) / 1000);
}

async function referencePostgres(url: string, csv: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const org = (await client.query("select id from organizations where name = 'bench-ref'")).rows[0].id as string;
  const at = new Date().toISOString();
  const started = Date.now();
  let n = 0;
  let batch: unknown[][] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await client.query('begin');
    for (let i = 0; i < batch.length; i += 500) {
      const part = batch.slice(i, i + 500);
      const params = part.flat();
      const tuples = part.map((_, j) => `(${COLUMNS.map((__, c) => `$${j * COLUMNS.length + c + 1}`).join(',')})`);
      await client.query(`insert into leads (${COLUMNS.join(',')}) values ${tuples.join(',')}`, params);
    }
    await client.query('commit');
    n += batch.length;
    batch = [];
  };
  for await (const r of rowsOf(csv)) {
    batch.push(leadValues(r, at, org));
    if (batch.length === BATCH) await flush();
  }
  await flush();
  await client.end();
  return n / ((Date.now() - started) / 1000);
}

/** Targets of issue 15: 10,000 rows/s into SQLite, 5,000 into PostgreSQL, peak RSS under 300 MB. */
export async function importSection(
  quick: boolean,
  pgUrls: { cli: string; reference: string } | undefined,
  rowsOverride?: number,
) {
  const rows = rowsOverride ?? (quick ? 100_000 : 1_000_000);
  const csv = await generate(rows);
  const label = `${rows / 1000}k rows`;
  const out: Row[] = [];
  const raw: Record<string, unknown> = { rows };
  const targets = [
    ['sqlite', `sqlite:${DATA}/import.db`, `sqlite:${DATA}/import-ref.db`, 10_000],
    ...(pgUrls ? [['postgres', pgUrls.cli, pgUrls.reference, 5_000] as const] : []),
  ] as const;
  for (const [dialect, url, refUrl, target] of targets) {
    for (const u of [url, refUrl]) {
      if (u.startsWith('sqlite:')) for (const s of ['', '-wal', '-shm']) rmSync(u.slice(7) + s, { force: true });
    }
    // The same schema and an organization (with its default profile) to hold the rows.
    const migrated = await run(['keys', 'create', '--org', 'bench-ref'], { DATABASE_URL: refUrl });
    if (migrated.code !== 0) throw new Error(`keys create failed: ${migrated.stderr}`);
    const ref =
      dialect === 'sqlite' ? await referenceSqlite(refUrl, csv.path) : await referencePostgres(refUrl, csv.path);
    const cli = await cliImport(url, csv.path);
    const rate = rows / cli.seconds;
    const section = `import-${dialect}`;
    out.push({
      section,
      measure: `parley import leads rows/s, ${label} (2 % dirty)`,
      value: String(Math.round(rate)),
      reference: `${Math.round(ref)} (bare INSERT)`,
      ratio: `${(rate / ref).toFixed(2)}x`,
      target: `>= ${target} rows/s`,
      met: rate >= target,
    });
    // On a shared machine the wall clock also counts other processes' turns: the rate per CPU second shows what the import itself costs.
    out.push({
      section,
      measure: `rows per CPU second of the import process, ${label}`,
      value: String(Math.round(rows / cli.cpuSeconds)),
      reference: '-',
      ratio: '-',
      target: '-',
      met: null,
    });
    out.push({
      section,
      measure: `peak RSS MB of the import, ${label}`,
      value: String(cli.rssMb),
      reference: '-',
      ratio: '-',
      target: '< 300 MB',
      met: cli.rssMb < 300,
    });
    raw[dialect] = {
      seconds: cli.seconds,
      cpuSeconds: cli.cpuSeconds,
      rate,
      reference: ref,
      rssMb: cli.rssMb,
      summary: cli.summary,
    };
    console.log(`import ${dialect}: ${cli.summary}; peak RSS ${cli.rssMb} MB; reference ${Math.round(ref)} rows/s`);
  }
  return { rows: out, raw };
}
