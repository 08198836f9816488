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
  };
}
