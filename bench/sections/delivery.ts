import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { v7 } from 'uuid';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { openStore } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { insertEndpoint } from '../../src/webhooks/endpoints.repository.js';
import { generateSecret } from '../../src/webhooks/signing.js';
import { load } from '../lib/load.js';
import { freePort, startProcess } from '../lib/processes.js';
import { profilingArgs } from '../lib/profile.js';
import type { Row } from '../lib/table.js';

export async function prepare(databaseUrl: string, receiverUrl: string, events: number): Promise<void> {
  if (databaseUrl.startsWith('sqlite:'))
    for (const s of ['', '-wal', '-shm']) rmSync(databaseUrl.slice(7) + s, { force: true });
  const store = openStore(databaseUrl, 2);
  await migrateToLatest(store);
  const { organizationId } = await issueKey(store.db, `delivery-${Date.now()}`);
  const now = new Date().toISOString();
  await insertEndpoint(store.db, organizationId, {
    id: v7(),
    url: receiverUrl,
    description: 'bench',
    events: null,
    secret: generateSecret(),
    enabled: 1,
    disabled_reason: null,
    created_at: now,
    updated_at: now,
  });
  for (let i = 0; i < events; i += 2000) {
    const rows = Array.from({ length: Math.min(2000, events - i) }, (_, k) => ({
      organization_id: organizationId,
      id: v7(),
      type: 'optOut',
      payload: JSON.stringify({
        leadId: v7(),
        externalLeadId: `crm-${i + k}`,
        phone: '+14155550100',
        email: null,
        channel: 'sms',
        source: 'api',
        optOutMessage: null,
        isDoNotContact: false,
      }),
      created_at: now,
      dispatched_at: null,
    }));
    for (let j = 0; j < rows.length; j += 200)
      await store.db
        .insertInto('events')
        .values(rows.slice(j, j + 200))
        .execute();
  }
  await store.close();
}

async function count(receiver: string): Promise<number> {
  return ((await (await fetch(`${receiver}/count`)).json()) as { count: number }).count;
}

/** Runs `workers` worker processes until the receiver has acknowledged `events` more deliveries; answers deliveries/s. */
async function drain(
  databaseUrl: string,
  receiver: string,
  events: number,
  workers: number,
  nodeArgs: string[] = [],
): Promise<number> {
  const base = await count(receiver);
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    LOG_LEVEL: 'warn',
    PARLEY_WORKER_POLL_MS: '20',
  };
  const procs = Array.from({ length: workers }, () =>
    spawn('node', [...nodeArgs, 'bin/parley.js', 'worker'], { env, stdio: ['ignore', 'ignore', 'inherit'] }),
  );
  try {
    let t0 = 0;
    let first = 0;
    const deadline = Date.now() + 180_000;
    for (;;) {
      const c = (await count(receiver)) - base;
      if (c > 0 && t0 === 0) [t0, first] = [Date.now(), c];
      if (c >= events) return Math.round(((c - first) * 1000) / Math.max(1, Date.now() - t0));
      if (Date.now() > deadline) throw new Error(`delivery stalled at ${c}/${events}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
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
}

export async function deliverySection(dialect: 'sqlite' | 'postgres', databaseUrl: string, quick: boolean) {
  const events = quick ? 4000 : dialect === 'sqlite' ? 20_000 : 12_000;
  const port = await freePort();
  const receiver = await startProcess(
    'node',
    ['--import', 'tsx', 'bench/receiver.ts', String(port)],
    {},
    port,
    '/count',
  );
  const hookUrl = `${receiver.url}/hook`;
  try {
    const ceiling = await load({
      name: 'receiver ceiling',
      url: hookUrl,
      method: 'POST',
      body: '{}',
      connections: 64,
      seconds: quick ? 2 : 5,
    });
    await prepare(databaseUrl, hookUrl, events);
    const one = await drain(databaseUrl, receiver.url, events, 1);
    const s = `delivery-${dialect}`;
    // Target (issue 14): 2,000 deliveries/s with one worker; on PostgreSQL two workers at least 1.7x one.
    const rows: Row[] = [
      {
        section: s,
        measure: 'bare POSTs to receiver/s (64 conns)',
        value: String(ceiling.requestsPerSec),
        reference: '-',
        ratio: '-',
        target: 'reference',
        met: null,
      },
      {
        section: s,
        measure: 'deliveries/s, one worker',
        value: String(one),
        reference: String(ceiling.requestsPerSec),
        ratio: `${Math.round((one / ceiling.requestsPerSec) * 100)}%`,
        target: '>= 2000/s',
        met: one >= 2000,
      },
    ];
    let two: number | undefined;
    if (dialect === 'postgres') {
      await prepare(databaseUrl, hookUrl, events);
      two = await drain(databaseUrl, receiver.url, events, 2);
      rows.push({
        section: s,
        measure: 'deliveries/s, two workers vs one',
        value: String(two),
        reference: String(one),
        ratio: `${(two / one).toFixed(2)}x`,
        target: '>= 1.7x',
        met: two / one >= 1.7,
      });
    }
    if (one < 2000) {
      // Where one worker's time goes: the same drain again under a profiler (slower, so never measured).
      const prof = profilingArgs(`${s}-worker`);
      await prepare(databaseUrl, hookUrl, Math.min(events, 4000));
      await drain(databaseUrl, receiver.url, Math.min(events, 4000), 1, prof.nodeArgs);
      rows.push({
        section: s,
        measure: 'one worker CPU profile (target missed)',
        value: prof.collect(),
        reference: '-',
        ratio: '-',
        target: 'report',
        met: null,
      });
    }
    return { rows, raw: { ceiling, one, two, events } };
  } finally {
    await receiver.stop();
  }
}
