import { cursorAt } from '../lib/cursor.js';
import { load, rotating } from '../lib/load.js';
import { freePort, startParley, type Proc } from '../lib/processes.js';
import type { Row } from '../lib/table.js';
import type { SeedResult } from '../seed.js';

interface Sized {
  url: string;
  seed: SeedResult;
  leads: number;
  messages: number;
}

type Plan = [string, () => string][];

async function planFor(s: Sized): Promise<Plan> {
  const msgCursor = await cursorAt(
    s.url,
    'messages',
    { organization_id: s.seed.organizationId, lead_id: s.seed.historyLeadId },
    Math.max(0, Math.floor(s.messages / 2) - 100),
  );
  const leadCursor = await cursorAt(
    s.url,
    'leads',
    { organization_id: s.seed.organizationId },
    Math.floor(s.leads / 2),
  );
  const phones = rotating(s.seed.samplePhones);
  const ids = rotating(s.seed.sampleLeadIds);
  // A history of 100 has one full page; a long one is read in its middle, also a full page of 100.
  const middle = s.messages > 200 ? `&nextToken=${msgCursor}` : '';
  return [
    ['messages page of 100', () => `/v1/leads/${s.seed.historyLeadId}/messages?limit=100${middle}`],
    ['leads page of 100 (middle of the list)', () => `/v1/leads?limit=100&nextToken=${leadCursor}`],
    ['leads page of 100 (first)', () => '/v1/leads?limit=100'],
    ['lookup by phone', () => `/v1/leads/lookup?phone=${encodeURIComponent(phones())}`],
    ['GET lead', () => `/v1/leads/${ids()}`],
  ];
}

/**
 * Flat cost as data grows: the same requests against a small organization and
 * a large one, both servers up at once and measured alternately (best of two
 * rounds each), so machine drift hits both alike. Time per request is taken
 * from throughput at fixed concurrency (connections / req/s).
 */
export async function scaleSection(
  smallUrl: string,
  small: SeedResult,
  bigUrl: string,
  big: SeedResult,
  bigLeads: number,
  quick: boolean,
  dialect: 'sqlite' | 'postgres' = 'sqlite',
) {
  const section = `scale-${dialect}`;
  const sizes: Sized[] = [
    { url: smallUrl, seed: small, leads: 10_000, messages: 100 },
    { url: bigUrl, seed: big, leads: bigLeads, messages: quick ? 20_000 : 100_000 },
  ];
  const procs: Proc[] = [];
  const ready: number[] = [];
  for (const s of sizes) {
    const p = await startParley(s.url, await freePort(), { PARLEY_WORKER: 'false' });
    procs.push(p);
  }
  // Ready time on an existing database (schema current): a separate start of each.
  for (const s of sizes) {
    const again = await startParley(s.url, await freePort(), { PARLEY_WORKER: 'false' });
    ready.push(again.readyMs);
    await again.stop();
  }
  const plans = await Promise.all(sizes.map(planFor));
  const connections = 10;
  const seconds = quick ? 2 : 4;
  const best: Record<string, number>[] = [{}, {}];
  let failures = 0;
  let rss: number[] = [];
  try {
    for (let round = 0; round < 2; round += 1) {
      for (let k = 0; k < plans[0]!.length; k += 1) {
        for (let i = 0; i < 2; i += 1) {
          const [name, path] = plans[i]![k]!;
          const headers = { 'x-api-key': sizes[i]!.seed.key };
          if (round === 0) await load({ name, url: procs[i]!.url, headers, path, connections, seconds: 1 });
          const r = await load({ name, url: procs[i]!.url, headers, path, connections, seconds });
          failures += r.errors + r.non2xx;
          const ms = Math.round((connections * 1000 * 100) / Math.max(1, r.requestsPerSec)) / 100;
          best[i]![name] = Math.min(best[i]![name] ?? Infinity, ms);
        }
      }
    }
  } finally {
    rss = procs.map((p) => p.peakRssMb());
    await Promise.all(procs.map((p) => p.stop()));
  }
  const label = `${bigLeads / 1000}k leads`;
  const rows: Row[] = Object.keys(best[0]!).map((name) => {
    const ratio = best[1]![name]! / best[0]![name]!;
    return {
      section,
      measure: `${name}: ms/request, ${label} vs 10k`,
      value: String(best[1]![name]),
      reference: String(best[0]![name]),
      ratio: `${ratio.toFixed(2)}x`,
      target: '<= 1.25x',
      met: ratio <= 1.25 && failures === 0,
    };
  });
  rows.push({
    section,
    measure: `peak RSS MB under load, ${label}`,
    value: String(rss[1]),
    reference: String(rss[0]),
    ratio: '-',
    target: '< 256 MB',
    met: rss[1]! < 256,
  });
  rows.push({
    section,
    measure: `ready to serve ms, ${label}`,
    value: String(ready[1]),
    reference: String(ready[0]),
    ratio: '-',
    target: '< 1000 ms',
    met: ready[1]! < 1000,
  });
  return { rows, raw: { small: best[0], big: best[1], ready, rss, failures } };
}
