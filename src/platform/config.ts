import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isSupportedCountry } from 'libphonenumber-js';

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
  /** PostgreSQL: a query without an answer after this long fails (0: no limit); bounds a request when the network to the database drops packets. */
  dbQueryTimeoutMs: number;
  /** PostgreSQL: hot queries as named server-side statements (off behind PgBouncer in transaction mode before 1.21). */
  dbNamedStatements: boolean;
  logLevel: string;
  /** Requests per minute per API key; 0 disables throttling. */
  rateLimitPerMinute: number;
  /** Country assumed for phone numbers written without a leading `+`. */
  defaultCountry: string;
  bodyLimitBytes: number;
  /** POST /v1/imports: the largest CSV upload, in bytes (spooled to a temporary file, never held in memory). */
  importBodyLimitBytes: number;
  /**
   * Where POST /v1/imports spools uploads (PARLEY_IMPORT_SPOOL_DIR, default
   * <os tmpdir>/parley-import-spool): a folder of Parley's own, one subfolder
   * per process, swept of dead processes' leftovers at start (imports/spool.ts).
   */
  importSpoolDir: string;
  /** How long data kept only for a while is kept, in days. */
  retention: RetentionConfig;
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
  /** How often a worker adds queued analytics counts into the rollups (0: only when a report is read). */
  analyticsFoldMs: number;
  /** How many deliveries / jobs one worker works on at once. */
  workerConcurrency: number;
  /** How long a claimed row stays invisible to other workers; a dead worker's rows come back after it. */
  leaseMs: number;
  /** Delay before each retry of a failed background job, in ms; its length is the number of retries. */
  jobRetryScheduleMs: number[];
  /** Twilio REST credentials; null when Twilio is not configured (sms and voice then use the log adapter). */
  twilio: TwilioConfig | null;
  /** The base URL the outside world (Twilio) calls us on: callback URLs and webhook signatures are computed from it. */
  publicUrl: string;
  /** smtp:// or smtps:// URL of the mail relay; null when email uses the log adapter. */
  smtpUrl: string | null;
  /** The From of every email, e.g. `Parley <no-reply@example.com>`. */
  emailFrom: string;
  /** Key of the unsubscribe links; null means one generated on first start and kept in the database (platform/secrets.repository.ts). */
  signingSecret: string | null;
  /** Who decides the AI agent's turns: `scripted` (deterministic, no network) or any OpenAI-compatible endpoint. */
  ai: AiConfig;
  /** A send a pool number's pace (or daily cap) would hold longer than this fails (PACING_TIMEOUT) instead of going out late. */
  pacingMaxWaitMs: number;
  /** The operator console (src/console-api/, src/users/). */
  console: ConsoleConfig;
}

export interface RetentionConfig {
  /** Rejected import rows, counted from their import's start (PARLEY_REJECTED_ROWS_RETENTION_DAYS, default 30). */
  rejectedRowsDays: number;
  /** Ids of provider webhooks already processed, against replays (PARLEY_PROVIDER_RECEIPT_RETENTION_DAYS, default 90). */
  providerReceiptsDays: number;
}

export interface ConsoleConfig {
  /** A session unused this long ends (PARLEY_SESSION_IDLE, default 12h). */
  sessionIdleMs: number;
  /** A session ends this long after sign-in, used or not (PARLEY_SESSION_MAX_AGE, default 168h = 7 days). */
  sessionMaxAgeMs: number;
  /** Failed sign-ins allowed per account, and per client address, in 15 minutes (in this process's memory). */
  loginFailuresPerAccount: number;
  loginFailuresPerAddress: number;
  /** Which reverse proxies to believe about X-Forwarded-Proto / X-Forwarded-For (PARLEY_TRUST_PROXY): cookies get Secure behind https, throttling counts the client. */
  trustProxy: TrustProxy;
  /** Where the built console is served from (PARLEY_CONSOLE_DIR, default <package>/dist/console). */
  dir: string;
  /** How often the event stream reads new events of an organization that someone watches. */
  eventsPollMs: number;
}

/**
 * false: the socket's peer is the client. `hops`: that many proxies stand in
 * front, each appending to X-Forwarded-For, so the client is the address the
 * outermost one appended (the hops-th from the right, the peer counting as the
 * first). `proxies`: the peer and every right-most X-Forwarded-For address in
 * these addresses or CIDRs are proxies; the first one outside is the client.
 * Either way what a client writes itself, to the left, is never believed.
 */
export type TrustProxy = false | { hops: number } | { proxies: string[] };

export interface AiConfig {
  provider: 'scripted' | 'openai';
  /** Chat-completions base, e.g. https://api.openai.com/v1; no trailing slash. */
  openaiBaseUrl: string;
  /** Required when provider is openai; never logged. */
  openaiApiKey: string | null;
  model: string;
  /** One model call, connect to last byte; a slower answer is a failed attempt (retried). */
  timeoutMs: number;
  /** PARLEY_AGENT_MAX_STEPS: model calls in one turn at most (read tools answer between them; agent/turn.ts). */
  maxSteps: number;
}

export interface TwilioConfig {
  accountSid: string;
  authToken: string;
  /** https://api.twilio.com, or a fake on 127.0.0.1 in tests; no trailing slash. */
  apiBaseUrl: string;
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

/** The directory holding Parley's package.json, from src/ or the compiled dist/src/ alike. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * The default database does not depend on the directory a command runs from:
 * `npm start` and `npx parley keys create` run anywhere must meet in one
 * database, or a key made in one place is unknown to the server.
 */
export function defaultDatabaseUrl(env: Env = {}): string {
  const dir = env.PARLEY_DATA_DIR ? resolve(env.PARLEY_DATA_DIR) : join(packageRoot(), 'data');
  return `sqlite:${join(dir, 'parley.db')}`;
}

/** Where the data is, for people: an absolute SQLite path, or the PostgreSQL URL without its password. */
export function describeDatabase(url: string): string {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    return path === ':memory:' ? 'SQLite in memory' : `SQLite at ${resolve(path)}`;
  }
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return `PostgreSQL at ${u.toString()}`;
  } catch {
    return 'PostgreSQL';
  }
}

function databaseUrl(env: Env): string {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return defaultDatabaseUrl(env);
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

/** Immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (docs/contract.md). */
const DEFAULT_RETRY_SCHEDULE = ['0', '5s', '5m', '30m', '2h', '5h', '10h', '10h'];

function durationMs(text: string): number | undefined {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text.trim());
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 'ms') as 'ms' | 's' | 'm' | 'h'];
  return n * unit;
}

function retrySchedule(env: Env, name = 'PARLEY_WEBHOOK_RETRY_SCHEDULE', fallback = DEFAULT_RETRY_SCHEDULE): number[] {
  const raw = env[name];
  const parts = raw === undefined || raw === '' ? fallback : raw.split(',');
  const values = parts.map(durationMs);
  if (values.length === 0 || values.length > 50 || values.some((v) => v === undefined)) {
    throw new ConfigError(`${name} must be a comma list of durations like 0,5s,5m,2h (got "${raw}")`);
  }
  return values as number[];
}

/** 10 s, 1 min, 5 min, 30 min, 2 h: a provider outage of a few hours is ridden out, then the send is recorded as failed. */
const DEFAULT_JOB_RETRY_SCHEDULE = ['10s', '1m', '5m', '30m', '2h'];

/** An absolute http(s) URL without query or fragment, returned without its trailing slash. */
function baseUrl(env: Env, name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw new ConfigError(`${name} must be an http:// or https:// URL without query or credentials (got "${raw}")`);
  }
  return raw.replace(/\/+$/, '');
}

function smtpUrl(env: Env): string | null {
  const raw = env.SMTP_URL;
  if (raw === undefined || raw === '') return null;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  // The URL carries the password: never echo it back.
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
    throw new ConfigError('SMTP_URL must be smtp://user:pass@host:port or smtps://user:pass@host:port');
  }
  return raw;
}

function emailFrom(env: Env): string {
  const raw = env.PARLEY_EMAIL_FROM;
  if (raw === undefined || raw === '') return 'Parley <no-reply@localhost>';
  if (/[\r\n]/.test(raw) || !/^(?:[^<>]*<[^<>\s@]+@[^<>\s@]+>|[^<>\s@]+@[^<>\s@]+)$/.test(raw.trim())) {
    throw new ConfigError(
      `PARLEY_EMAIL_FROM must be an address like no-reply@example.com or "Name <no-reply@example.com>" (got "${raw}")`,
    );
  }
  return raw.trim();
}

/** Too short a key would make unsubscribe links guessable offline. */
function signingSecret(env: Env): string | null {
  const raw = env.PARLEY_SIGNING_SECRET;
  if (raw === undefined || raw === '') return null;
  if (raw.length < 32)
    throw new ConfigError(
      'PARLEY_SIGNING_SECRET must be at least 32 characters (for example: openssl rand -base64 32)',
    );
  return raw;
}

/** Both or neither: half a Twilio configuration would fail on the first send or accept webhooks it cannot verify. */
function twilio(env: Env): TwilioConfig | null {
  const sid = env.TWILIO_ACCOUNT_SID ?? '';
  const token = env.TWILIO_AUTH_TOKEN ?? '';
  if (sid === '' && token === '') return null;
  if (sid === '') throw new ConfigError('TWILIO_ACCOUNT_SID must be set when TWILIO_AUTH_TOKEN is set');
  if (token === '') throw new ConfigError('TWILIO_AUTH_TOKEN must be set when TWILIO_ACCOUNT_SID is set');
  if (!/^[A-Za-z0-9]{1,64}$/.test(sid))
    throw new ConfigError(`TWILIO_ACCOUNT_SID must be letters and digits, like AC0123... (got "${sid}")`);
  if (/\s/.test(token)) throw new ConfigError('TWILIO_AUTH_TOKEN must not contain whitespace');
  return {
    accountSid: sid,
    authToken: token,
    apiBaseUrl: baseUrl(env, 'TWILIO_API_BASE_URL', 'https://api.twilio.com'),
  };
}

/** The OpenAI provider without a key would fail every turn at run time: refuse to start instead. */
function ai(env: Env): AiConfig {
  const provider = oneOf(env, 'PARLEY_AI_PROVIDER', 'scripted', ['scripted', 'openai']) as AiConfig['provider'];
  const key = env.OPENAI_API_KEY ?? '';
  if (provider === 'openai' && key.trim() === '')
    throw new ConfigError('OPENAI_API_KEY must be set when PARLEY_AI_PROVIDER=openai');
  const model = env.PARLEY_AI_MODEL || 'gpt-4o-mini';
  if (!/^\S{1,200}$/.test(model))
    throw new ConfigError(`PARLEY_AI_MODEL must be a model name without spaces (got "${model}")`);
  return {
    provider,
    openaiBaseUrl: baseUrl(env, 'OPENAI_BASE_URL', 'https://api.openai.com/v1'),
    openaiApiKey: key.trim() === '' ? null : key.trim(),
    model,
    timeoutMs: integer(env, 'PARLEY_AI_TIMEOUT_MS', 20_000, 50, 600_000),
    maxSteps: integer(env, 'PARLEY_AGENT_MAX_STEPS', 5, 1, 20),
  };
}

export function loadConfig(env: Env = process.env): Config {
  // Empty means default, as for every variable. An unknown code would make every national number a 400, so it stops the boot.
  const country = (env.PARLEY_DEFAULT_COUNTRY || 'US').toUpperCase();
  if (!/^[A-Z]{2}$/.test(country) || !isSupportedCountry(country)) {
    throw new ConfigError(
      `PARLEY_DEFAULT_COUNTRY must be a two-letter country code (got "${env.PARLEY_DEFAULT_COUNTRY}")`,
    );
  }
  const port = integer(env, 'PORT', 8080, 0, 65535);
  return {
    port,
    host: env.HOST && env.HOST !== '' ? env.HOST : '0.0.0.0',
    databaseUrl: databaseUrl(env),
    dbPoolSize: integer(env, 'PARLEY_DB_POOL_SIZE', 10, 1, 1000),
    dbQueryTimeoutMs: integer(env, 'PARLEY_DB_QUERY_TIMEOUT_MS', 30_000, 0, 3_600_000),
    dbNamedStatements: flag(env, 'PARLEY_DB_NAMED_STATEMENTS', true),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    rateLimitPerMinute: integer(env, 'PARLEY_RATE_LIMIT', 1200, 0, 10_000_000),
    defaultCountry: country,
    bodyLimitBytes: 1024 * 1024,
    importBodyLimitBytes: integer(
      env,
      'PARLEY_IMPORT_BODY_LIMIT_BYTES',
      100 * 1024 * 1024,
      1024,
      64 * 1024 * 1024 * 1024,
    ),
    importSpoolDir: env.PARLEY_IMPORT_SPOOL_DIR
      ? resolve(env.PARLEY_IMPORT_SPOOL_DIR)
      : join(tmpdir(), 'parley-import-spool'),
    retention: {
      rejectedRowsDays: integer(env, 'PARLEY_REJECTED_ROWS_RETENTION_DAYS', 30, 1, 3650),
      providerReceiptsDays: integer(env, 'PARLEY_PROVIDER_RECEIPT_RETENTION_DAYS', 90, 1, 3650),
    },
    keyCacheMs: integer(env, 'PARLEY_KEY_CACHE_MS', 1000, 0, 1000),
    allowPrivateWebhookUrls: flag(env, 'PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS', false),
    webhookRetryScheduleMs: retrySchedule(env),
    webhookTimeoutMs: integer(env, 'PARLEY_WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000),
    runWorker: flag(env, 'PARLEY_WORKER', true),
    workerPollMs: integer(env, 'PARLEY_WORKER_POLL_MS', 200, 10, 60_000),
    analyticsFoldMs: integer(env, 'PARLEY_ANALYTICS_FOLD_MS', 1000, 0, 3_600_000),
    workerConcurrency: integer(env, 'PARLEY_WORKER_CONCURRENCY', 128, 1, 1000),
    leaseMs: integer(env, 'PARLEY_LEASE_MS', 60_000, 1000, 3_600_000),
    jobRetryScheduleMs: retrySchedule(env, 'PARLEY_JOB_RETRY_SCHEDULE', DEFAULT_JOB_RETRY_SCHEDULE),
    twilio: twilio(env),
    publicUrl: baseUrl(env, 'PARLEY_PUBLIC_URL', `http://localhost:${port}`),
    smtpUrl: smtpUrl(env),
    emailFrom: emailFrom(env),
    signingSecret: signingSecret(env),
    ai: ai(env),
    pacingMaxWaitMs: pacingMaxWait(env),
    console: consoleConfig(env),
  };
}

function duration(env: Env, name: string, fallback: string, minMs: number): number {
  const raw = env[name] || fallback; // unset or empty: the default
  const ms = durationMs(raw);
  if (ms === undefined || ms < minMs)
    throw new ConfigError(`${name} must be a duration like 30m or 12h, at least ${minMs / 1000} s (got "${raw}")`);
  return ms;
}

function consoleConfig(env: Env): ConsoleConfig {
  return {
    sessionIdleMs: duration(env, 'PARLEY_SESSION_IDLE', '12h', 60_000),
    sessionMaxAgeMs: duration(env, 'PARLEY_SESSION_MAX_AGE', '168h', 60_000),
    loginFailuresPerAccount: integer(env, 'PARLEY_LOGIN_FAILURES_PER_ACCOUNT', 10, 1, 1_000_000),
    loginFailuresPerAddress: integer(env, 'PARLEY_LOGIN_FAILURES_PER_ADDRESS', 50, 1, 1_000_000),
    trustProxy: trustProxy(env),
    dir: env.PARLEY_CONSOLE_DIR ? resolve(env.PARLEY_CONSOLE_DIR) : join(packageRoot(), 'dist', 'console'),
    eventsPollMs: integer(env, 'PARLEY_CONSOLE_EVENTS_POLL_MS', 750, 50, 60_000),
  };
}

/** proxy-addr's names for address ranges, which Fastify accepts in a proxy list. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isAddressOrCidr(text: string): boolean {
  if (PROXY_RANGE_NAMES.includes(text)) return true;
  const [address, prefix, extra] = text.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * PARLEY_TRUST_PROXY: false (default, or 0); a number of proxy hops (true is
 * one hop, as 1 always was); or a comma list of proxy addresses and CIDRs.
 * `true` once meant "believe every address in X-Forwarded-For", which let a
 * client behind an appending proxy choose its address by writing the header.
 */
function trustProxy(env: Env): TrustProxy {
  const raw = (env.PARLEY_TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true') return { hops: 1 };
  const help =
    "PARLEY_TRUST_PROXY must be false, true (one proxy in front), the number of proxies in front (1 to 20), or a comma list of the proxies' addresses or CIDRs like 10.0.0.5,192.168.0.0/16";
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 20) throw new ConfigError(`${help} (got "${raw}")`);
    return { hops };
  }
  const proxies = raw.split(',').map((p) => p.trim());
  const bad = proxies.find((p) => !isAddressOrCidr(p));
  if (bad !== undefined) throw new ConfigError(`${help} (got "${raw}": "${bad}" is not an address or CIDR)`);
  return { proxies };
}

/** PARLEY_PACING_MAX_WAIT_HOURS: hours, decimals allowed (0.01 is 36 s), default 10. */
function pacingMaxWait(env: Env): number {
  const raw = env.PARLEY_PACING_MAX_WAIT_HOURS;
  if (raw === undefined || raw === '') return 10 * 3_600_000;
  const hours = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || hours <= 0 || hours > 720) {
    throw new ConfigError(
      `PARLEY_PACING_MAX_WAIT_HOURS must be a number of hours above 0 and at most 720, like 10 or 0.5 (got "${raw}")`,
    );
  }
  return Math.round(hours * 3_600_000);
}
