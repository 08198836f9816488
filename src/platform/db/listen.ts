import { createRequire } from 'node:module';
import type pgModule from 'pg';
import { WORK_CHANNEL, type WorkSignal } from './wake.js';

/** The listening connection's application_name: operators (and a test) can find it in pg_stat_activity. */
export const LISTENER_NAME = 'parley-worker-listen';

export interface Listening {
  /** Subscriptions made so far: 1 once listening, one more after each lost connection is replaced. */
  readonly subscriptions: number;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** First wait before re-subscribing after a loss; doubles up to `maxBackoffMs`, back to this once listening. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  onLost?(err: unknown, retryInMs: number): void;
}

/**
 * A worker process's ear on PostgreSQL: one dedicated connection (outside the
 * pool, which lends its clients to anyone) runs `LISTEN parley_work`, and
 * each notification, sent by a committing transaction in any process
 * (wake.ts), wakes this process's worker. A connection that is lost (the
 * server restarted, the backend terminated) is replaced after a backoff; on
 * each subscription the worker is woken once, since whatever was committed
 * while nobody listened was announced to nobody. Until then the poll finds it.
 */
export function listenForWork(url: string, signal: WorkSignal, options: ListenOptions = {}): Listening {
  const pg = createRequire(import.meta.url)('pg') as typeof pgModule;
  const minBackoff = options.minBackoffMs ?? 100;
  const maxBackoff = options.maxBackoffMs ?? 5000;
  let backoff = minBackoff;
  let subscriptions = 0;
  let closed = false;
  let client: pgModule.Client | undefined;
  let retry: NodeJS.Timeout | undefined;

  const subscribe = async (): Promise<void> => {
    retry = undefined;
    if (closed) return;
    const c = new pg.Client({
      connectionString: url,
      application_name: LISTENER_NAME,
      connectionTimeoutMillis: 5000,
      keepAlive: true,
    });
    client = c;
    let lost = false;
    const onLost = (err: unknown) => {
      if (lost) return;
      lost = true;
      void c.end().catch(() => {});
      if (closed) return;
      options.onLost?.(err, backoff);
      retry = setTimeout(() => void subscribe(), backoff);
      backoff = Math.min(backoff * 2, maxBackoff);
    };
    c.on('error', onLost);
    c.on('end', () => onLost(new Error('the listening connection ended')));
    c.on('notification', (n) => signal.hear(n.processId));
    try {
      await c.connect();
      await c.query(`listen ${WORK_CHANNEL}`);
    } catch (err) {
      onLost(err);
      return;
    }
    if (lost || closed) return;
    backoff = minBackoff;
    subscriptions += 1;
    signal.hear();
  };

  void subscribe();
  return {
    get subscriptions() {
      return subscriptions;
    },
    close: async () => {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
