import { expect } from 'vitest';
import type { V1Routes } from '../support/api.js';

type LiveLead = Extract<V1Routes['GET /leads']['leads'][number], { deleted: false }>;
import type { Client } from '../support/harness.js';
import { until } from '../support/assert.js';

/** POST /v1/imports with a CSV body and query options. */
export function postCsv(
  client: Client,
  csv: string | Buffer,
  query: Record<string, string> = {},
  contentType = 'text/csv',
) {
  const qs = new URLSearchParams(query).toString();
  const path: '/imports' | `/imports?${string}` = qs ? `/imports?${qs}` : '/imports';
  return client.call('POST', path, csv as string, { 'content-type': contentType });
}

/** Polls GET /v1/imports/{id} until it is no longer running. */
export async function settled(client: Client, id: string, ms = 20_000) {
  const res = await until(
    async () => {
      const r = await client.get(`/imports/${id}`);
      expect(r.status).toBe(200);
      return r;
    },
    (r) => r.body.status !== 'running',
    ms,
    { what: `import ${id} to end` },
  );
  return res.body;
}

/** Uploads and waits: the finished import's view. */
export async function importCsv(client: Client, csv: string | Buffer, query: Record<string, string> = {}) {
  const res = await postCsv(client, csv, query);
  if (res.status !== 202) throw new Error(`POST /imports: ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body).toMatchObject({ id: expect.any(String), status: 'running' });
  return settled(client, res.body.id);
}

/** Every lead of the organization (all pages). */
export async function allLeads(client: Client) {
  const out: LiveLead[] = [];
  let token: string | null = null;
  do {
    const page: `/leads?${string}` = `/leads?limit=1000${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`;
    const res = await client.get(page);
    expect(res.status).toBe(200);
    // The listing without updatedSince has no erased leads; the filter says so to the type.
    out.push(...res.body.leads.flatMap((l) => (l.deleted ? [] : [l])));
    token = res.body.nextToken;
  } while (token);
  return out;
}

let counter = 0;
/** A distinct possible US phone per call, in a range the harness's uniquePhone does not use (+1 628). */
export function importPhone(): string {
  counter += 1;
  const n = (process.pid % 500) * 10000 + counter;
  return `+1628${String(2000000 + (n % 7000000)).padStart(7, '0')}`;
}

/** A CSV line (RFC 4180 quoting where needed). */
export const csvLine = (values: readonly string[], sep = ',') =>
  values.map((v) => (/[",;\t\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v)).join(sep);
