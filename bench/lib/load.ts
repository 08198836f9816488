import autocannon from 'autocannon';

export interface LoadResult {
  name: string;
  requestsPerSec: number;
  p50: number;
  p99: number;
  mean: number;
  errors: number;
  non2xx: number;
  /** Requests completed. */
  total?: number;
  /** CPU per request in microseconds: the server process, and PostgreSQL's processes when it is the database. */
  serverUs?: number;
  databaseUs?: number;
}

export interface LoadOptions {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Called per request for a path (rotating ids); otherwise the url's own path. */
  path?: () => string;
  body?: string;
  connections: number;
  seconds: number;
  /** Stop after this many requests (for write paths that consume a finite pool of rows). */
  amount?: number;
}

/** One autocannon run from this process (a separate process from the server under test). */
export async function load(o: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: o.url,
    connections: o.connections,
    duration: o.amount ? undefined : o.seconds,
    amount: o.amount,
    method: o.method ?? 'GET',
    headers: { ...(o.body ? { 'content-type': 'application/json' } : {}), ...o.headers },
    body: o.body,
    requests: o.path ? [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, path: o.path!() }) }] : undefined,
  } as autocannon.Options);
  return {
    name: o.name,
    requestsPerSec: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: Math.round(result.latency.average * 100) / 100,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

export function rotating<T>(items: T[]): () => T {
  let i = 0;
  return () => items[i++ % items.length]!;
}
