/**
 * All configuration comes from environment variables, parsed once at start.
 * A bad value stops the process with one line naming the variable; nothing
 * else in the tree reads process.env.
 */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  dbPoolSize: number;
  logLevel: string;
  /** Requests per minute per API key; 0 disables throttling. */
  rateLimitPerMinute: number;
  /** Country assumed for phone numbers written without a leading `+`. */
  defaultCountry: string;
  bodyLimitBytes: number;
  /** How long a resolved API key may be served from memory (revocation latency). */
  keyCacheMs: number;
  /** Lets webhooks target http://, private, loopback and link-local addresses (tests, self-hosted networks). */
  allowPrivateWebhookUrls: boolean;
  /** Delay before each retry of a failed delivery, in ms; its length is the number of retries. */
  webhookRetryScheduleMs: number[];
  webhookTimeoutMs: number;
  /** Run the background worker inside `serve` (off with `serve --no-worker`). */
  runWorker: boolean;
  workerPollMs: number;
  /** How many deliveries / jobs one worker works on at once. */
  workerConcurrency: number;
  /** How long a claimed row stays invisible to other workers; a dead worker's rows come back after it. */
  leaseMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function oneOf(env: Env, name: string, fallback: string, allowed: readonly string[]): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!allowed.includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
  return raw;
}

function databaseUrl(env: Env): string {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return 'sqlite:./data/parley.db';
  if (/^sqlite:.+/.test(raw) || /^postgres(ql)?:\/\/.+/.test(raw)) return raw;
  throw new ConfigError(`DATABASE_URL must be sqlite:<path> or postgres://... (got "${raw}")`);
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

/** Immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (decisions.md). */
const DEFAULT_RETRY_SCHEDULE = ['0', '5s', '5m', '30m', '2h', '5h', '10h', '10h'];

function durationMs(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] ?? 'ms']!;
  return n * unit;
}

function retrySchedule(env: Env): number[] {
  const raw = env.PARLEY_WEBHOOK_RETRY_SCHEDULE;
  const parts = raw === undefined || raw === '' ? DEFAULT_RETRY_SCHEDULE : raw.split(',');
  const values = parts.map(durationMs);
  if (values.length === 0 || values.length > 50 || values.some((v) => v === undefined)) {
    throw new ConfigError(`PARLEY_WEBHOOK_RETRY_SCHEDULE must be a comma list of durations like 0,5s,5m,2h (got "${raw}")`);
  }
  return values as number[];
}

export function loadConfig(env: Env = process.env): Config {
  const country = (env.PARLEY_DEFAULT_COUNTRY ?? 'US').toUpperCase();
  if (!/^[A-Z]{2}$/.test(country)) {
    throw new ConfigError(`PARLEY_DEFAULT_COUNTRY must be a two-letter country code (got "${env.PARLEY_DEFAULT_COUNTRY}")`);
  }
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST && env.HOST !== '' ? env.HOST : '0.0.0.0',
    databaseUrl: databaseUrl(env),
    dbPoolSize: integer(env, 'PARLEY_DB_POOL_SIZE', 10, 1, 1000),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    rateLimitPerMinute: integer(env, 'PARLEY_RATE_LIMIT', 1200, 0, 10_000_000),
    defaultCountry: country,
    bodyLimitBytes: 1024 * 1024,
    keyCacheMs: integer(env, 'PARLEY_KEY_CACHE_MS', 1000, 0, 1000),
    allowPrivateWebhookUrls: flag(env, 'PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS', false),
    webhookRetryScheduleMs: retrySchedule(env),
    webhookTimeoutMs: integer(env, 'PARLEY_WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
    runWorker: flag(env, 'PARLEY_WORKER', true),
    workerPollMs: integer(env, 'PARLEY_WORKER_POLL_MS', 200, 10, 60_000),
    workerConcurrency: integer(env, 'PARLEY_WORKER_CONCURRENCY', 64, 1, 1000),
    leaseMs: integer(env, 'PARLEY_LEASE_MS', 60_000, 1000, 3_600_000),
  };
}
