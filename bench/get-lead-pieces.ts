/**
 * What each piece of GET /v1/leads/{id} costs on its own, in process, against the
 * bench's seeded SQLite file (`npm run bench -- --only http` leaves it in bench/data):
 *
 *   node --import tsx bench/get-lead-pieces.ts [sqlite:bench/data/http.db]
 *
 * Each piece runs on its own in a loop (after a warm-up) and is reported in
 * microseconds of CPU per call. What is left of the server's CPU per request (the bench's
 * `GET lead CPU us/request` row) is Node's HTTP and Fastify's routing and reply,
 * which the bare lookup pays too. bench/README.md has the table.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import SqliteDatabase from 'better-sqlite3';
import type { FastifyBaseLogger } from 'fastify';
import { createLogger } from '../src/platform/logger.js';
import { lazyRequestLogger } from '../src/platform/http/request-logger.js';
import { digestKey, sameDigest } from '../src/platform/auth/keys.js';
import { scopeFor } from '../src/platform/auth/scopes.js';
import { openStore } from '../src/platform/db/connect.js';
import { validatorCompiler } from '../src/platform/http/validation.js';
import { findLeadView } from '../src/lead-records/leads.repository.js';
import { toLeadViewOf } from '../src/leads/leads.mapper.js';
import { LeadIdParams } from '../src/platform/http/schemas.js';
import { selectLeadViews } from '../src/lead-records/leads.repository.js';
import type { SeedResult } from './seed.js';

const url = process.argv[2] ?? 'sqlite:bench/data/http.db';
const seed = JSON.parse(readFileSync('bench/data/http.json', 'utf8')) as SeedResult;
const org = seed.organizationId;
const ids = seed.sampleLeadIds;
const N = 20_000;

async function time(name: string, fn: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < 2000; i++) await fn(i);
  // CPU time, not wall time: on a shared machine the wall clock counts other processes' turns.
  const t = process.cpuUsage();
  for (let i = 0; i < N; i++) await fn(i);
  const used = process.cpuUsage(t);
  const us = (used.user + used.system) / N;
  console.log(`${us.toFixed(2).padStart(8)} us  ${name}`);
  return us;
}

const store = openStore(url, 2);
const raw = new SqliteDatabase(url.slice('sqlite:'.length), { readonly: true });
const bare = raw.prepare('select * from leads where organization_id = ? and id = ?');
const id = (i: number) => ids[i % ids.length]!;

const digest = digestKey(seed.key);
const cache = new Map([[digest, { digest }]]);
await time('API key: SHA-256 of the header (crypto.hash), cache lookup', () => cache.get(digestKey(seed.key)));
await time('  before: Hash object, cache lookup, both digests decoded and compared', () => {
  const d = createHash('sha256').update(seed.key, 'utf8').digest('hex');
  const hit = cache.get(d);
  return hit && sameDigest(hit.digest, d);
});
const log = createLogger('warn') as unknown as FastifyBaseLogger;
await time('request logger, nothing written (lazy)', (i) => lazyRequestLogger(log, { reqId: id(i) }, {}).info('x'));
await time('  before: pino child per request', (i) => log.child({ reqId: id(i) }).info('x'));
await time('scope of the route', () => scopeFor('GET', '/v1/leads/:leadId'));
await time('request id (randomUUID)', () => randomUUID());
const validate = validatorCompiler({ schema: LeadIdParams, httpPart: 'params', method: 'GET', url: '' }) as (
  d: unknown,
) => boolean;
await time('params validation (ajv, NUL check)', (i) => validate({ leadId: id(i) }));
await time('bare SELECT * (better-sqlite3, the reference)', (i) => bare.get(org, id(i)));
const compiled = selectLeadViews(store.db, org).where('leads.id', '=', id(0)).compile();
const viewStmt = raw.prepare(compiled.sql);
await time("the lead view's SQL (tags, DNC subqueries), better-sqlite3", (i) =>
  viewStmt.get(...compiled.parameters.map((p) => (p === id(0) ? id(i) : p))),
);
await time('findLeadView through Kysely and the group-commit driver', (i) => findLeadView(store.db, org, id(i)));
const row = await findLeadView(store.db, org, id(0));
await time('mapping the row to the API view', () => toLeadViewOf(row!));
const view = toLeadViewOf(row!);
await time('JSON.stringify of the view', () => JSON.stringify(view));
const bareRow = bare.get(org, id(0));
await time('JSON.stringify of the bare row (the reference answers it)', () => JSON.stringify(bareRow));
raw.close();
await store.close();
