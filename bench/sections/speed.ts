import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { v7 } from 'uuid';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { loadConfig } from '../../src/platform/config.js';
import { openStore } from '../../src/platform/db/connect.js';
import { insertEndpoint } from '../../src/webhooks/endpoints.repository.js';
import { generateSecret } from '../../src/webhooks/signing.js';
import { startServer } from '../../src/server.js';
import { openAllHoursOrganization } from '../lib/organization.js';
import { freePort, startParley } from '../lib/processes.js';
import type { Row } from '../lib/table.js';
import { daytimePhones } from '../lib/daytime-phones.js';
import { machineMeter, processesMeter } from '../lib/cpu.js';

/**
 * Speed to lead: from the API's answer to `POST /v1/leads/create` (a profile
 * with an opening, contact hours open) to the opening at a fake carrier on
 * 127.0.0.1. Trickle: leads one by one, 100 ms apart; burst: 25 requests at a
 * time, the next 25 when they are answered. SQLite runs `parley serve` (API
 * and worker in one process); PostgreSQL `serve --no-worker` and a separate
 * `parley worker`. The poll is left at its default: what a deployment sees.
 *
 * Then statements per lead, counted in this process with the store's
 * statement hook (Kysely's log: every statement but BEGIN/COMMIT).
 */

const SID = 'ACspeed';
const TOKEN = 'speed-token';
const SENDER = '+16285550190';
const SENDS_SENDER = '+16285550191';

interface Carrier {
  url: string;
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

async function fakeCarrier(): Promise<Carrier> {
  const arrivals = new Map<string, number>();
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const to = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('To') ?? '';
      if (!arrivals.has(to)) arrivals.set(to, Date.now());
      n += 1;
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ sid: `SM${String(n).padStart(32, '0')}`, status: 'queued' }));
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function post(url: string, key: string, path: string, body: unknown, method = 'POST'): Promise<void> {
  const res = await fetch(`${url}/v1${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

// Leads where it is daytime now: the night floor would hold every opening (bench/lib/daytime-phones.ts).
const nextPhone = daytimePhones(0);

/** Creates a lead with the opening; answers its phone and when the API answered. */
async function createLead(url: string, key: string): Promise<{ phone: string; answered: number }> {
  const phone = nextPhone();
  await post(url, key, '/leads/create', { firstName: 'Speedy', phone, customerProfile: 'speed-greeter' });
  return { phone, answered: Date.now() };
}

async function arrivedAll(carrier: Carrier, phones: string[], limitMs: number): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (phones.some((p) => !carrier.arrivals.has(p))) {
    if (Date.now() > deadline)
      throw new Error(
        `speed bench stalled: ${phones.filter((p) => carrier.arrivals.has(p)).length}/${phones.length} at the carrier`,
      );
    await sleep(5);
  }
}

const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

/** The processes a burst's CPU is counted for: the API's, and the worker's when it is apart. */
interface Pids {
  api: number;
  worker?: number;
  /** Whether PostgreSQL's backends are counted too. */
  postgres: boolean;
}

/** A CPU time in microseconds as the table shows it, '-' when not measured. */
const cpuMs = (us: number | undefined) => (us === undefined ? '-' : `${(us / 1000).toFixed(2)} ms`);

async function measure(url: string, key: string, carrier: Carrier, quick: boolean, pids: Pids) {
  await post(url, key, '/customerProfiles', {
    name: 'speed-greeter',
    openingMessage: 'Hi {{firstName}}, thanks for your interest',
  }).catch(() => {});
  // Warm-up: the first sends load the provider's client and open connections.
  for (let i = 0; i < 5; i += 1) {
    const { phone } = await createLead(url, key);
    await arrivedAll(carrier, [phone], 30_000);
  }
  // Trickle: one lead every 100 ms, each answered before the next is due.
  const trickleCount = quick ? 50 : 200;
  const trickle: { phone: string; answered: number }[] = [];
  const start = Date.now();
  for (let i = 0; i < trickleCount; i += 1) {
    const due = start + i * 100;
    if (due > Date.now()) await sleep(due - Date.now());
    trickle.push(await createLead(url, key));
  }
  await arrivedAll(
    carrier,
    trickle.map((t) => t.phone),
    60_000,
  );
  const trickleMs = trickle.map((t) => carrier.arrivals.get(t.phone)! - t.answered);
  await sleep(500);
  // Burst: 25 requests at a time.
  const burstCount = quick ? 250 : 1000;
  const burst: { phone: string; answered: number }[] = [];
  // Where the burst's CPU goes, per lead: the API's process, the worker's, PostgreSQL's backends, and how busy the
  // machine was (1 = both cores all the time): what the per-lead latency queues behind when it is saturated.
  const named: Record<string, number> = { api: pids.api };
  if (pids.worker) named.worker = pids.worker;
  const cpu = processesMeter(named, pids.postgres);
  const machine = machineMeter();
  for (let i = 0; i < burstCount; i += 25)
    burst.push(
      ...(await Promise.all(Array.from({ length: Math.min(25, burstCount - i) }, () => createLead(url, key)))),
    );
  await arrivedAll(
    carrier,
    burst.map((b) => b.phone),
    300_000,
  );
  const used = cpu(burstCount);
  const burstCpu = {
    api: used.api,
    worker: pids.worker ? used.worker : undefined,
    databaseUs: used.databaseUs,
    machineBusy: Number(machine().toFixed(2)),
  };
  const burstMs = burst.map((b) => carrier.arrivals.get(b.phone)! - b.answered);
  const lastAnswer = Math.max(...burst.map((b) => b.answered));
  const lastArrival = Math.max(...burst.map((b) => carrier.arrivals.get(b.phone)!));
  return {
    trickleCount,
    burstCount,
    trickleMs,
    burstMs,
    drainMs: lastArrival - lastAnswer,
    burstCpu,
    burstSeconds: (lastAnswer - burst[0]!.answered + burstMs[0]!) / 1000,
  };
}

function startWorker(env: Record<string, string>): ChildProcess {
  return spawn('node', ['bin/parley.js', 'worker'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    proc.once('exit', () => resolve());
    proc.kill('SIGTERM');
  });
}

/**
 * Statements per lead, API and worker apart, counted exactly: leads one at a
 * time, each followed to the carrier, in one in-process server whose poll is
 * a minute away, so nothing runs but what the requests and their commits'
 * wakes cause. Then the same requests against an API-only server of the same
 * store: the API's share. The worker's is the difference. The worker's
 * statements are also sorted by what they do (claims, the send's judgement,
 * its completion, the outbox's fan-out) from their text.
 */
async function statementsPerLead(databaseUrl: string, fake: Carrier, quick: boolean) {
  const key = await openAllHoursOrganization(databaseUrl, 'speed', SENDER);
  const leads = quick ? 20 : 50;
  const config = (worker: boolean) =>
    loadConfig({
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      PARLEY_RATE_LIMIT: '0',
      PARLEY_WORKER: String(worker),
      PARLEY_WORKER_POLL_MS: '60000',
      TWILIO_ACCOUNT_SID: SID,
      TWILIO_AUTH_TOKEN: TOKEN,
      TWILIO_API_BASE_URL: fake.url,
    });
  let counting = false;
  const seen: string[] = [];
  const onStatement = (sql: string) => {
    if (counting) seen.push(sql);
  };
  const full = await startServer(config(true), { onStatement });
  try {
    const url = full.address;
    await post(url, key, '/customerProfiles', { name: 'speed-greeter', openingMessage: 'Hi {{firstName}}' });
    for (let i = 0; i < 3; i += 1) await arrivedAll(fake, [(await createLead(url, key)).phone], 30_000);
    await sleep(300);
    counting = true;
    for (let i = 0; i < leads; i += 1) {
      const { phone } = await createLead(url, key);
      await arrivedAll(fake, [phone], 30_000);
      // The job's completion after the carrier answered.
      await sleep(100);
    }
    counting = false;
  } finally {
    await full.stop();
  }
  const total = seen.splice(0);
  const apiOnly = await startServer(config(false), { onStatement });
  try {
    counting = true;
    for (let i = 0; i < leads; i += 1) await createLead(apiOnly.address, key);
    counting = false;
  } finally {
    await apiOnly.stop();
  }
  const api = seen.length;
  const kinds = classify(total).map(([k, n]) => [k, n - (classify(seen).find(([j]) => j === k)?.[1] ?? 0)] as const);
  return {
    leads,
    api: api / leads,
    worker: (total.length - api) / leads,
    kinds: Object.fromEntries(kinds.map(([k, n]) => [k, n / leads])),
  };
}

/** What a statement does, from its text: the claims, the send's judgement, its completion, the fan-out. */
function classify(statements: string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const q of statements) {
    const kind = /^update "(jobs|webhook_deliveries)" set "lease_until"/.test(q)
      ? 'claim'
      : /"dispatched_at" is null|^update "events" set "dispatched_at"/.test(q)
        ? 'fan-out'
        : 'other';
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts];
}

interface Receiver {
  url: string;
  times: number[];
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that answers 200 at once and notes when each delivery came. */
async function fakeReceiver(): Promise<Receiver> {
  const times: number[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      times.push(Date.now());
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    times,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Per second between the first and the last of `times` (ms). */
const rate = (times: number[]) => {
  const first = Math.min(...times);
  const last = Math.max(...times);
  return Math.round(((times.length - 1) * 1000) / Math.max(1, last - first));
};

/**
 * Sends per second against webhook deliveries per second, through one worker
 * process at the default poll, each to an unpaced fake on 127.0.0.1: the
 * work is queued first with no worker running (1,000 openings through the
 * API; as many outbox events for an endpoint, written to the store), then a
 * worker is started and timed from the first arrival to the last.
 */
async function sendsVersusDeliveries(
  databaseUrl: string,
  env: Record<string, string>,
  carrier: Carrier,
  quick: boolean,
) {
  const n = quick ? 250 : 1000;
  const receiver = await fakeReceiver();
  const workerEnv = { ...env, PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true' };
  try {
    // Deliveries: events of an organization with one endpoint, no sends.
    const store = openStore(databaseUrl, 2);
    const { organizationId } = await issueKey(store.db, `speed-hooks-${Date.now()}`);
    const now = new Date().toISOString();
    await insertEndpoint(store.db, organizationId, {
      id: v7(),
      url: `${receiver.url}/hook`,
      description: 'bench',
      events: null,
      secret: generateSecret(),
      enabled: 1,
      disabled_reason: null,
      created_at: now,
      updated_at: now,
    });
    const rows = Array.from({ length: n }, (_, i) => ({
      organization_id: organizationId,
      id: v7(),
      type: 'optOut',
      payload: JSON.stringify({ leadId: v7(), externalLeadId: `crm-${i}`, phone: '+14155550100', channel: 'sms' }),
      created_at: now,
      dispatched_at: null,
    }));
    for (let j = 0; j < rows.length; j += 200)
      await store.db
        .insertInto('events')
        .values(rows.slice(j, j + 200))
        .execute();
    await store.close();
    const hooks = startWorker(workerEnv);
    try {
      await waitFor(() => receiver.times.length >= n, 120_000, 'webhook deliveries');
    } finally {
      await stop(hooks);
    }
    // Sends: openings queued through an API-only server, then the same worker alone.
    const key = await openAllHoursOrganization(databaseUrl, 'speed-sends', SENDS_SENDER);
    const api = await startParley(databaseUrl, await freePort(), { ...env, PARLEY_WORKER: 'false' });
    const phones: string[] = [];
    try {
      await post(api.url, key, '/customerProfiles', { name: 'speed-greeter', openingMessage: 'Hi {{firstName}}' });
      for (let i = 0; i < n; i += 25)
        phones.push(
          ...(await Promise.all(Array.from({ length: Math.min(25, n - i) }, () => createLead(api.url, key)))).map(
            (l) => l.phone,
          ),
        );
    } finally {
      await api.stop();
    }
    const sends = startWorker(workerEnv);
    // From the first arrival, so the worker's start-up (loading modules, connecting) is not counted against the sends.
    await waitFor(() => phones.some((p) => carrier.arrivals.has(p)), 60_000, 'the first send');
    const cpu = processesMeter({ worker: sends.pid! }, env.DATABASE_URL!.startsWith('postgres'));
    let sendCpu: ReturnType<typeof cpu>;
    try {
      await arrivedAll(carrier, phones, 120_000);
      sendCpu = cpu(phones.filter((p) => carrier.arrivals.has(p)).length);
    } finally {
      await stop(sends);
    }
    return {
      n,
      sendsPerSecond: rate(phones.map((p) => carrier.arrivals.get(p)!)),
      deliveriesPerSecond: rate(receiver.times),
      sendCpu,
    };
  } finally {
    await receiver.close();
  }
}

async function waitFor(done: () => boolean, limitMs: number, what: string): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`speed bench stalled: ${what}`);
    await sleep(5);
  }
}

export async function speedSection(
  dialect: 'sqlite' | 'postgres',
  databaseUrl: string,
  countUrl: string,
  quick: boolean,
) {
  const carrier = await fakeCarrier();
  const key = await openAllHoursOrganization(databaseUrl, 'speed', SENDER);
  const env = {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    PARLEY_RATE_LIMIT: '0',
    TWILIO_ACCOUNT_SID: SID,
    TWILIO_AUTH_TOKEN: TOKEN,
    TWILIO_API_BASE_URL: carrier.url,
  };
  const separate = dialect === 'postgres';
  const api = await startParley(databaseUrl, await freePort(), separate ? { ...env, PARLEY_WORKER: 'false' } : env);
  const worker = separate ? startWorker(env) : undefined;
  let m: Awaited<ReturnType<typeof measure>>;
  try {
    m = await measure(api.url, key, carrier, quick, {
      api: api.child.pid!,
      worker: worker?.pid,
      postgres: dialect === 'postgres',
    });
  } finally {
    if (worker) await stop(worker);
    await api.stop();
  }
  const throughput = await sendsVersusDeliveries(databaseUrl, env, carrier, quick);
  const statements = await statementsPerLead(countUrl, carrier, quick);
  await carrier.close();
  const section = `speed-${dialect}`;
  const how = separate ? 'API + separate worker' : 'one process';
  const t50 = percentile(m.trickleMs, 50);
  const t99 = percentile(m.trickleMs, 99);
  const b99 = percentile(m.burstMs, 99);
  const rows: Row[] = [
    {
      section,
      measure: `trickle (${m.trickleCount} leads, 100 ms apart, ${how}): answer to carrier p50`,
      value: `${t50} ms`,
      reference: '',
      ratio: '',
      target: '<= 30 ms',
      met: t50 <= 30,
    },
    {
      section,
      measure: 'trickle: answer to carrier p99',
      value: `${t99} ms`,
      reference: '',
      ratio: '',
      target: '<= 100 ms',
      met: t99 <= 100,
    },
    {
      section,
      measure: `burst (${m.burstCount} leads, 25 at a time): last answer to last opening`,
      value: `${m.drainMs} ms`,
      reference: '',
      ratio: '',
      target: '<= 2000 ms',
      met: m.drainMs <= 2000,
    },
    {
      section,
      measure: 'burst: answer to carrier per lead p99',
      value: `${b99} ms`,
      reference: '',
      ratio: '',
      target: '<= 1000 ms',
      met: b99 <= 1000,
    },
    {
      section,
      measure: `sends/s through one worker vs webhook deliveries/s (${throughput.n} each, unpaced fakes)`,
      value: `${throughput.sendsPerSecond}/s`,
      reference: `${throughput.deliveriesPerSecond}/s`,
      ratio: `${Math.round((100 * throughput.sendsPerSecond) / Math.max(1, throughput.deliveriesPerSecond))} %`,
      target: 'report',
      met: null,
    },
    {
      section,
      measure: 'burst: CPU per lead, API / worker / PostgreSQL (machine busy, 1 = both cores)',
      value: [m.burstCpu.api, m.burstCpu.worker, m.burstCpu.databaseUs].map(cpuMs).join(' / '),
      reference: `busy ${m.burstCpu.machineBusy}`,
      ratio: '',
      target: 'report',
      met: null,
    },
    {
      section,
      measure: 'sends through one worker: CPU per send, worker / PostgreSQL',
      value: [throughput.sendCpu.worker, throughput.sendCpu.databaseUs].map(cpuMs).join(' / '),
      reference: '',
      ratio: '',
      target: 'report',
      met: null,
    },
    {
      section,
      measure: 'statements per lead: API / worker (no BEGIN, COMMIT; exact, poll 60 s)',
      value: `${statements.api.toFixed(1)} / ${statements.worker.toFixed(1)}`,
      reference: Object.entries(statements.kinds)
        .map(([k, n]) => `${k} ${n.toFixed(1)}`)
        .join(', '),
      ratio: '',
      target: 'report',
      met: null,
    },
  ];
  return { rows, raw: { ...m, trickleP50: t50, trickleP99: t99, burstP99: b99, statements, throughput } };
}
