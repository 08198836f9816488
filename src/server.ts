import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { assembleDeps } from './platform/assemble.js';
import type { Clock } from './platform/clock.js';
import type { Config } from './platform/config.js';
import { openStore, type Store } from './platform/db/connect.js';
import type { Deps } from './platform/deps.js';
import { sweepSpool } from './imports/spool.js';
import { campaignOptOutQueries } from './campaigns/opt-outs.js';
import { onOptOut } from './subscriptions/opt-out-effects.js';
import type { Worker } from './worker/worker.js';
import type { Listening } from './platform/db/listen.js';

/** The worker (HTTP client, providers, agent) is loaded after the API listens: ready sooner. */
const loadWorker = async () => (await import('./worker/worker.js')).Worker;

export interface RunningServer {
  app: FastifyInstance;
  store: Store;
  worker: Worker | undefined;
  /** PostgreSQL with a worker: its LISTEN for work committed by other processes. */
  listening: Listening | undefined;
  deps: Deps;
  address: string;
  stop(): Promise<void>;
}

/** What a test may replace; production always runs on the system clock. */
export interface StartOptions {
  clock?: Clock;
  /** Told every statement the store runs (bench/: statements per send). */
  onStatement?: (sql: string) => void;
}

/**
 * What an opt-out also writes in the capabilities above subscriptions/ and dnc/, in its transaction
 * (subscriptions/opt-out-effects.ts): registered here, where the API and the worker are assembled, so the
 * capabilities an opt-out stops are not imported by the ones that record it.
 */
function registerOptOutEffects(): void {
  onOptOut('campaigns', campaignOptOutQueries);
}

/** Opens and migrates the store and builds what every process shares. */
async function openDeps(config: Config, options: StartOptions): Promise<{ store: Store; deps: Deps }> {
  registerOptOutEffects();
  const store = openStore(config.databaseUrl, config.dbPoolSize, {
    queryTimeoutMs: config.dbQueryTimeoutMs,
    namedStatements: config.dbNamedStatements,
    onStatement: options.onStatement,
  });
  return { store, deps: await assembleDeps(store, config, { clock: options.clock }) };
}

/**
 * The worker, woken by commits of this process's store and, on PostgreSQL, by
 * other processes' (LISTEN); on SQLite a worker process of its own only polls.
 */
async function runWorker(store: Store, deps: Deps): Promise<{ worker: Worker; listening: Listening | undefined }> {
  const worker = new (await loadWorker())(deps, undefined, store.work);
  const listening = store.listen?.({
    onLost: (err, retryInMs) =>
      deps.log.warn(
        { err, retryInMs },
        `lost the LISTEN connection; subscribing again in ${retryInMs} ms (polling meanwhile)`,
      ),
  });
  worker.start();
  return { worker, listening };
}

/** Opens the store, migrates it, listens, starts the worker (unless disabled); stop() drains requests, stops the worker, closes the pool. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const { store, deps } = await openDeps(config, options);
  // Uploads of API imports whose process was killed (imports/spool.ts): the whole CSV, personal data.
  const swept = await sweepSpool(config.importSpoolDir);
  if (swept.length > 0) deps.log.info({ folders: swept }, 'removed the import uploads of processes that are gone');
  const app = await buildApp(deps);
  const address = await app.listen({ port: config.port, host: config.host });
  const { worker, listening } = config.runWorker
    ? await runWorker(store, deps)
    : { worker: undefined, listening: undefined };
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await app.close();
      await listening?.close();
      await worker?.stop();
      await store.close();
    })());
  return { app, store, worker, listening, deps, address, stop };
}

/** A worker process with no HTTP API (`parley worker`). */
export async function startWorker(
  config: Config,
  options: StartOptions = {},
): Promise<{ deps: Deps; stop(): Promise<void> }> {
  const { store, deps } = await openDeps(config, options);
  const { worker, listening } = await runWorker(store, deps);
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await listening?.close();
      await worker.stop();
      await store.close();
    })());
  return { deps, stop };
}

/** SIGTERM / SIGINT: stop accepting, finish in-flight requests, close the database, exit. */
export function stopOnSignals(server: { deps: Deps; stop(): Promise<void> }): void {
  const onSignal = (signal: string) => {
    server.deps.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.stop().then(
      () => process.exit(0),
      (err) => {
        server.deps.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
