import { cursorAt } from '../lib/cursor.js';
import { load, rotating } from '../lib/load.js';
import { freePort, startParley } from '../lib/processes.js';
import type { Row } from '../lib/table.js';
import type { SeedResult } from '../seed.js';

interface Sized {
  url: string;
  seed: SeedResult;
  leads: number;
  messages: number;
}

/**
 * Flat cost as data grows: the same requests against a small organization and
 * a large one, same process shape, same concurrency. Time per request is taken
 * from throughput at fixed concurrency (connections / req/s), steadier than a
 * sub-millisecond latency histogram.
 */
async function measure(s: Sized, quick: boolean) {
  const port = await freePort();
  const proc = await startParley(s.url, port, { PARLEY_WORKER: 'false' });
  const headers = { 'x-api-key': s.seed.key };
  const connections = 10;
  const seconds = quick ? 3 : 6;
  const msgCursor = await cursorAt(s.url, 'messages', { organization_id: s.seed.organizationId, lead_id: s.seed.historyLeadId }, Math.floor(s.messages / 2));
  const leadCursor = await cursorAt(s.url, 'leads', { organization_id: s.seed.organizationId }, Math.floor(s.leads / 2));
  const phones = rotating(s.seed.samplePhones);
  const ids = rotating(s.seed.sampleLeadIds);
  const plan: [string, string | (() => string)][] = [
    ['messages page 100 (first)', `/v1/leads/${s.seed.historyLeadId}/messages?limit=100`],
    ['messages page 100 (middle of history)', `/v1/leads/${s.seed.historyLeadId}/messages?limit=100&nextToken=${msgCursor}`],
    ['leads page 100 (first)', '/v1/leads?limit=100'],
    ['leads page 100 (middle)', `/v1/leads?limit=100&nextToken=${leadCursor}`],
    ['lookup by phone', () => `/v1/leads/lookup?phone=${encodeURIComponent(phones())}`],
    ['GET lead', () => `/v1/leads/${ids()}`],
  ];
  const out: Record<string, { msPerRequest: number; rps: number; p99: number; non2xx: number }> = {};
  try {
    for (const [name, p] of plan) {
      const path = typeof p === 'string' ? () => p : p;
      await load({ name, url: proc.url, headers, path, connections, seconds: 1 });
      const r = await load({ name, url: proc.url, headers, path, connections, seconds });
      out[name] = { msPerRequest: Math.round((connections * 1000 * 100) / Math.max(1, r.requestsPerSec)) / 100, rps: r.requestsPerSec, p99: r.p99, non2xx: r.non2xx + r.errors };
    }
  } finally {
    out.rss = { msPerRequest: 0, rps: proc.peakRssMb(), p99: 0, non2xx: 0 };
    await proc.stop();
  }
  // Ready time on an existing database (the second start: schema already current).
  const again = await startParley(s.url, await freePort(), { PARLEY_WORKER: 'false' });
  out.ready = { msPerRequest: again.readyMs, rps: 0, p99: 0, non2xx: 0 };
  await again.stop();
  return out;
}

export async function scaleSection(smallUrl: string, small: SeedResult, bigUrl: string, big: SeedResult, bigLeads: number, quick: boolean) {
  const a = await measure({ url: smallUrl, seed: small, leads: 10_000, messages: 100 }, quick);
  const b = await measure({ url: bigUrl, seed: big, leads: bigLeads, messages: quick ? 20_000 : 100_000 }, quick);
  const label = `${bigLeads / 1000}k leads`;
  const rows: Row[] = [];
  for (const name of Object.keys(a).filter((k) => k !== 'rss' && k !== 'ready')) {
    const ratio = b[name]!.msPerRequest / a[name]!.msPerRequest;
    rows.push({
      section: 'scale-sqlite', measure: `${name}: ms/request, ${label} vs 10k`, value: String(b[name]!.msPerRequest), reference: String(a[name]!.msPerRequest),
      ratio: `${ratio.toFixed(2)}x`, target: '<= 1.25x', met: ratio <= 1.25 && b[name]!.non2xx === 0 && a[name]!.non2xx === 0,
    });
  }
  rows.push({ section: 'scale-sqlite', measure: `peak RSS MB under load, ${label}`, value: String(b.rss!.rps), reference: String(a.rss!.rps), ratio: '-', target: '< 256 MB', met: b.rss!.rps < 256 });
  rows.push({ section: 'scale-sqlite', measure: `ready to serve ms, ${label}`, value: String(b.ready!.msPerRequest), reference: String(a.ready!.msPerRequest), ratio: '-', target: '< 1000 ms', met: b.ready!.msPerRequest < 1000 });
  return { rows, raw: { small: a, big: b } };
}
