import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import type { Scope } from '../../src/platform/auth/scopes.js';
import { loadConfig, type Config } from '../../src/platform/config.js';
import type { DialectName } from '../../src/platform/db/connect.js';
import { startServer, type RunningServer, type StartOptions } from '../../src/server.js';
import type { StepOptions, StepReport } from '../../src/worker/worker.js';
import { copySqlite, databaseUrl } from './db-templates.js';
import { PG_ADMIN_URL } from './global-setup.js';
import { TestClock } from './test-clock.js';
import type { AnswerOf, Body, V1Routes } from './api.js';

/**
 * How far ahead the test step (TestServer.runDue) waits for paced sends: a send deferred to its sending
 * number's next slot is a second or two away at the default rates (longCode 1/s: the third of three sends
 * at once; 0.5/s: the second). Slower numbers (a pacing test's 0.05/s) stay deferred, as they should.
 */
export const PACED_REACH_MS = 3_000;

export type Dialect = DialectName;

export function dialects(): Dialect[] {
  return inject('pgAvailable') ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** A fresh, empty database of the dialect: a temp SQLite file, or a new PostgreSQL database. */
export async function freshDatabase(dialect: Dialect): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'parley-test-'));
    return { url: `sqlite:${join(dir, 'parley.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `parley_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  return {
    url: databaseUrl(PG_ADMIN_URL, name),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * A database of the dialect with the schema already in place: a copy of the run's migrated template
 * (db-templates.ts), which a server's start then finds up to date. Cheaper than `freshDatabase` and a
 * migration by a tenth or more; without the templates (a config with no global setup) it is a fresh one,
 * migrated by the server as before. `drop` on PostgreSQL starts the drop and returns (the run's teardown
 * drops any its process left behind).
 */
export async function migratedDatabase(dialect: Dialect): Promise<{ url: string; drop(): Promise<void> }> {
  const templates = inject('dbTemplates');
  if (!templates || (dialect === 'postgres' && !templates.postgres)) return freshDatabase(dialect);
  if (dialect === 'sqlite') {
    const { url, dir } = copySqlite(templates);
    return { url, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `parley_t_${templates.run}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${templates.postgres}`);
  } finally {
    await admin.end();
  }
  return {
    url: databaseUrl(PG_ADMIN_URL, name),
    drop: async () => {
      const c = new pg.Client({ connectionString: PG_ADMIN_URL });
      void c
        .connect()
        .then(() => c.query(`drop database if exists ${name} with (force)`))
        .catch(() => {})
        .finally(() => c.end().catch(() => {}));
    },
  };
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** The answer of a `/v1` route, from its response schema (test/support/api.ts); `unknown` for a route without one. */
export type V1Answer<M extends string, P extends string> = ApiResponse<Body<AnswerOf<V1Routes, Uppercase<M>, P>>>;

/**
 * A client of the `/v1` API with an organization's key. Its answers are typed from the route schemas by the
 * method and the path as written (`get(`/leads/${id}`)` answers a `Lead`); `untyped` is the escape hatch for
 * an answer no schema describes (a Twilio webhook's TwiML, a route being built): its body is `unknown`.
 */
export interface Client {
  key: string;
  call<M extends string, P extends string>(
    method: M,
    path: P,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<V1Answer<M, P>>;
  get<P extends string>(path: P): Promise<V1Answer<'GET', P>>;
  post<P extends string>(path: P, body?: unknown): Promise<V1Answer<'POST', P>>;
  put<P extends string>(path: P, body?: unknown): Promise<V1Answer<'PUT', P>>;
  patch<P extends string>(path: P, body?: unknown): Promise<V1Answer<'PATCH', P>>;
  del<P extends string>(path: P): Promise<V1Answer<'DELETE', P>>;
  untyped(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
}

export interface TestServer {
  dialect: Dialect;
  url: string;
  server: RunningServer;
  config: Config;
  /** The server's clock (API and worker): real time until a test moves it. */
  clock: TestClock;
  /** Clients of two organizations, every scope. */
  acme: Client;
  beta: Client;
  /** A client for a key with only these scopes, in organization `acme`. */
  clientWithScopes(scopes: Scope[], org?: string): Promise<Client>;
  raw(path: string, init?: RequestInit): Promise<ApiResponse>;
  /**
   * The worker's step (src/worker/worker.ts runDue): claims and runs everything due now by `clock`, waits
   * for it to end, and answers what ran. Move the clock, call this, then assert: "nothing was sent" holds
   * once the step that would have sent it has run, with no sleeping. A send paced to its sending number's
   * next slot (deferred a moment, not due now) is waited for when its slot is within PACED_REACH_MS, so
   * after the step every send a test triggered has gone; `{ pacedWithinMs: 0 }` steps only what is due now
   * (a test about pacing itself).
   */
  runDue(options?: StepOptions): Promise<StepReport>;
  close(): Promise<void>;
}

async function toResponse(res: Response): Promise<ApiResponse> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body, headers: res.headers };
}

export function clientFor(baseUrl: string, key: string): Client {
  const untyped = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const init: RequestInit = { method, headers: { 'x-api-key': key, ...headers } };
    if (body !== undefined) {
      // Bytes go as they are (a CSV upload in another encoding); anything else but text is JSON.
      init.body = typeof body === 'string' || body instanceof Uint8Array ? (body as string) : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    return toResponse(await fetch(`${baseUrl}/v1${path}`, init));
  };
  // The answer's type comes from the route table; at run time it is whatever the server sent.
  const call = untyped as Client['call'];
  return {
    key,
    call,
    untyped,
    get: (p) => call('GET', p),
    post: (p, b) => call('POST', p, b),
    put: (p, b) => call('PUT', p, b),
    patch: (p, b) => call('PATCH', p, b),
    del: (p) => call('DELETE', p),
  };
}

export async function startTestServer(
  dialect: Dialect,
  env: Record<string, string> = {},
  options: Omit<StartOptions, 'clock'> = {},
): Promise<TestServer> {
  const database = await migratedDatabase(dialect);
  const config = loadConfig({
    DATABASE_URL: database.url,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.PARLEY_TEST_LOG_LEVEL ?? 'silent',
    PARLEY_RATE_LIMIT: '0',
    ...env,
  });
  const clock = new TestClock();
  const server = await startServer(config, { ...options, clock });
  const url = server.address;
  // The suites' keys hold every scope, inbound:write included (speaking as a lead is what many of them test).
  const acmeKey = await issueKey(server.store.db, 'acme', SCOPES);
  const betaKey = await issueKey(server.store.db, 'beta', SCOPES);
  return {
    dialect,
    url,
    server,
    config,
    clock,
    acme: clientFor(url, acmeKey.key),
    beta: clientFor(url, betaKey.key),
    clientWithScopes: async (scopes, org = 'acme') =>
      clientFor(url, (await issueKey(server.store.db, org, scopes)).key),
    raw: async (path, init) => toResponse(await fetch(`${url}${path}`, init)),
    runDue: async (options = {}) => {
      if (!server.worker) throw new Error('runDue: this server runs no worker (PARLEY_WORKER=false?)');
      return server.worker.runDue({ pacedWithinMs: PACED_REACH_MS, ...options });
    },
    close: async () => {
      await server.stop();
      await database.drop();
    },
  };
}

/** Runs the same suite once per available dialect, each against its own fresh server and database. */
export function describeEachDialect(
  title: string,
  suite: (ctx: () => TestServer) => void,
  env: Record<string, string> = {},
): void {
  for (const dialect of dialects()) {
    describe(`${title} [${dialect}]`, () => {
      let ts: TestServer | undefined;
      beforeAll(async () => {
        ts = await startTestServer(dialect, env);
      });
      afterAll(async () => {
        await ts?.close();
      });
      suite(() => {
        if (!ts) throw new Error('test server not started');
        return ts;
      });
    });
  }
}

let phoneCounter = 0;
/** A distinct, possible US number per call (555-01xx range style, unique per process). */
export function uniquePhone(): string {
  phoneCounter += 1;
  const n = (process.pid % 1000) * 10000 + phoneCounter;
  return `+1415${String(2000000 + (n % 8000000)).padStart(7, '0')}`;
}

export async function createLead(client: Client, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await client.post('/leads/create', {
    firstName: 'Ann',
    lastName: 'Lee',
    phone: uniquePhone(),
    ...fields,
  });
  if (res.status !== 200) throw new Error(`createLead failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/**
 * A lead of a listing (GET /v1/leads) that is there and not erased, typed as such: the listing's rows are
 * `Lead | { id, deleted: true, deletedAt }`, and a test reading a lead's fields says which it expects.
 */
export function live<L extends { id: string; deleted: boolean }>(lead: L | undefined): Extract<L, { deleted: false }> {
  if (!lead) throw new Error('no lead in the listing');
  if (lead.deleted) throw new Error(`lead ${lead.id} is listed as erased`);
  return lead as Extract<L, { deleted: false }>;
}
