import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { openStore } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { insertSendingNumber } from '../../src/sending-numbers/sending-numbers.repository.js';
import { freePort, startParley } from '../lib/processes.js';
import type { Row } from '../lib/table.js';

/**
 * Pacing across processes (issue 15): two worker processes on one PostgreSQL
 * drain a backlog through one pool number at a configured rate, against a
 * small fake Twilio in this process that stamps each request; the achieved
 * rate is reported as a ratio to the configured one, and the busiest second
 * the provider saw against the rate (the workers fall behind their slots
 * while they take the first claims of the backlog: what leaves then must
 * not leave as a burst). Then the cost of the
 * pool on the send path: messages/s through the same two workers for a pool
 * number with a rate too high to bind, against an organization without a
 * pool (settings sendingNumber, unpaced), alternated and best of two rounds.
 */

const SID = 'ACbench';
const TOKEN = 'bench-token';

interface FakeTwilio {
  url: string;
  arrivals: Map<string, number[]>;
  close(): Promise<void>;
}

async function fakeTwilio(): Promise<FakeTwilio> {
  const arrivals = new Map<string, number[]>();
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const from = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('From') ?? '';
      arrivals.set(from, [...(arrivals.get(from) ?? []), Date.now()]);
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

/** Runs `fn` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

async function call(url: string, key: string, path: string, body: unknown): Promise<{ id: string }> {
  const res = await fetch(`${url}/v1${path}`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
}

let phones = 0;
/** `count` leads of the organization, each with one SMS queued (no worker runs yet, so they wait). */
async function queue(api: string, key: string, count: number): Promise<void> {
  await inParallel(
    Array.from({ length: count }, (_, i) => i),
    16,
    async (i) => {
      phones += 1;
      const lead = await call(api, key, '/leads/create', {
        firstName: `P${i}`,
        phone: `+1415${String(3000000 + phones).padStart(7, '0')}`,
      });
      await call(api, key, `/leads/${lead.id}/sendMessage`, { message: `pacing bench ${i}`, channel: 'sms' });
    },
  );
}

function startWorkers(env: Record<string, string>, count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn('node', ['bin/parley.js', 'worker'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
}

async function stopAll(procs: ChildProcess[]): Promise<void> {
  await Promise.all(
    procs.map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.exitCode !== null) return resolve();
          p.once('exit', () => resolve());
          p.kill('SIGTERM');
        }),
    ),
  );
}

/** Waits until `from` has `count` more arrivals; answers their times. */
async function drained(
  fake: FakeTwilio,
  from: string,
  base: number,
  count: number,
  limitMs: number,
): Promise<number[]> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const got = (fake.arrivals.get(from) ?? []).slice(base);
    if (got.length >= count) return got;
    if (Date.now() > deadline) throw new Error(`pacing bench stalled: ${got.length}/${count} from ${from}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function pacingSection(databaseUrl: string, quick: boolean) {
  const rate = 20;
  const seconds = quick ? 10 : 60;
  const perRound = quick ? 300 : 1000;
  const fake = await fakeTwilio();
  const store = openStore(databaseUrl, 2);
  await migrateToLatest(store);
  const pooled = await issueKey(store.db, 'pacing-pool');
  const plain = await issueKey(store.db, 'pacing-plain');
  const now = new Date().toISOString();
  const open = JSON.stringify({ contactHours: { start: '00:00', end: '00:00' } });
  const paced = '+13125550100';
  const unbound = '+13125550101';
  const settingsNumber = '+13125550102';
  await store.db
    .updateTable('organizations')
    .set({ settings: open })
    .where('id', 'in', [pooled.organizationId, plain.organizationId])
    .execute();
  await store.db
    .updateTable('organizations')
    .set({ sending_number: settingsNumber })
    .where('id', '=', plain.organizationId)
    .execute();
  await store.close();

  const env = {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    PARLEY_WORKER_POLL_MS: '20',
    PARLEY_RATE_LIMIT: '0',
    PARLEY_DB_POOL_SIZE: '10',
    TWILIO_ACCOUNT_SID: SID,
    TWILIO_AUTH_TOKEN: TOKEN,
    TWILIO_API_BASE_URL: fake.url,
  };
  const api = await startParley(databaseUrl, await freePort(), { ...env, PARLEY_WORKER: 'false' });
  const addNumber = async (organizationId: string, number: string, ratePerSecond: number) => {
    const s = openStore(databaseUrl, 1);
    // Straight into the table: the API caps ratePerSecond at 1000, and the overhead run wants a rate that never binds.
    await insertSendingNumber(s.db, organizationId, {
      id: crypto.randomUUID(),
      number,
      kind: 'shortCode',
      channel: 'sms',
      rate_per_second: ratePerSecond,
      daily_cap: null,
      created_at: now,
      updated_at: now,
    });
    await s.close();
  };
  try {
    // 1. The achieved rate: a backlog of `seconds` worth of sends, two workers, one number.
    await addNumber(pooled.organizationId, paced, rate);
    const backlog = rate * seconds;
    await queue(api.url, pooled.key, backlog);
    let workers = startWorkers(env, 2);
    const times = await drained(fake, paced, 0, backlog, (seconds + 120) * 1000);
    await stopAll(workers);
    const achieved = (times.length - 1) / ((times.at(-1)! - times[0]!) / 1000);
    const worstSecond = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1000).length));
    // Arrivals per second from the first, for the shape of a run (a start-up gap, a burst) in the raw results.
    const perSecond: number[] = [];
    for (const t of times) {
      const second = Math.floor((t - times[0]!) / 1000);
      perSecond[second] = (perSecond[second] ?? 0) + 1;
    }

    // 2. The send path's overhead: messages/s with a pool number whose rate never binds, against a pool-less organization.
    await addNumber(pooled.organizationId, unbound, 1_000_000);
    // The paced number leaves the pool so every new lead meets the unbound one.
    const s = openStore(databaseUrl, 1);
    await s.db.deleteFrom('sending_numbers').where('number', '=', paced).execute();
    await s.close();
    const best = { pool: 0, plain: 0 };
    for (let round = 0; round < 2; round += 1) {
      for (const [which, key, from] of [
        ['plain', plain.key, settingsNumber],
        ['pool', pooled.key, unbound],
      ] as const) {
        await queue(api.url, key, perRound);
        const base = fake.arrivals.get(from)?.length ?? 0;
        workers = startWorkers(env, 2);
        const got = await drained(fake, from, base, perRound, 300_000);
        await stopAll(workers);
        best[which] = Math.max(best[which], Math.round((got.length - 1) / ((got.at(-1)! - got[0]!) / 1000)));
      }
    }
    const ratio = achieved / rate;
    const rows: Row[] = [
      {
        section: 'pacing-postgres',
        measure: `achieved rate, 2 workers, one number (${backlog} sends)`,
        value: `${achieved.toFixed(2)}/s`,
        reference: `${rate}/s`,
        ratio: `${(ratio * 100).toFixed(1)}%`,
        target: 'within 5%',
        met: Math.abs(ratio - 1) <= 0.05,
      },
      {
        section: 'pacing-postgres',
        measure: 'busiest second at the provider vs rate',
        value: String(worstSecond),
        reference: `${rate}/s`,
        ratio: `${((worstSecond / rate) * 100).toFixed(0)}%`,
        target: '<= rate x 1.1',
        met: worstSecond <= rate * 1.1,
      },
      {
        section: 'pacing-postgres',
        measure: 'messages/s, 2 workers: pool (rate unbound) vs no pool',
        value: `${best.pool}/s`,
        reference: `${best.plain}/s`,
        ratio: `${Math.round((best.pool / best.plain) * 100)}%`,
        target: 'report',
        met: null,
      },
    ];
    return {
      rows,
      raw: {
        rate,
        seconds,
        backlog,
        achieved,
        worstSecond,
        perSecond: Array.from(perSecond, (n) => n ?? 0),
        best,
        perRound,
      },
    };
  } finally {
    await api.stop();
    await fake.close();
  }
}
