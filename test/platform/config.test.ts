import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, describeDatabase, loadConfig } from '../../src/platform/config.js';

/** The default database is in the package's data/ directory, whatever the directory a command runs from. */
const PACKAGE_DB = `sqlite:${join(fileURLToPath(new URL('../..', import.meta.url)), 'data', 'parley.db')}`;

function failure(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('has the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      databaseUrl: PACKAGE_DB,
      dbPoolSize: 10,
      logLevel: 'info',
      rateLimitPerMinute: 1200,
      defaultCountry: 'US',
      bodyLimitBytes: 1024 * 1024,
      keyCacheMs: 1000,
    });
  });

  it('treats an empty value as unset, for every variable', () => {
    const empty = Object.fromEntries(
      [
        'PORT',
        'HOST',
        'DATABASE_URL',
        'PARLEY_DB_POOL_SIZE',
        'LOG_LEVEL',
        'PARLEY_RATE_LIMIT',
        'PARLEY_DEFAULT_COUNTRY',
        'PARLEY_KEY_CACHE_MS',
      ].map((k) => [k, '']),
    );
    expect(loadConfig(empty)).toEqual(loadConfig({}));
  });

  it('reads only the env it is given (nothing from process.env behind its back)', () => {
    process.env.PORT = '1234';
    process.env.DATABASE_URL = 'postgres://elsewhere/db';
    expect(loadConfig({}).port).toBe(8080);
    expect(loadConfig({}).databaseUrl).toBe(PACKAGE_DB);
  });

  it('puts the default database under the package, not the current directory; PARLEY_DATA_DIR moves it', () => {
    const cwd = process.cwd();
    try {
      process.chdir('/tmp');
      expect(loadConfig({}).databaseUrl).toBe(PACKAGE_DB);
    } finally {
      process.chdir(cwd);
    }
    expect(loadConfig({ PARLEY_DATA_DIR: '/var/lib/parley' }).databaseUrl).toBe('sqlite:/var/lib/parley/parley.db');
    expect(loadConfig({ PARLEY_DATA_DIR: '/var/lib/parley', DATABASE_URL: 'sqlite:/x.db' }).databaseUrl).toBe(
      'sqlite:/x.db',
    );
  });

  it('says where the data is without a password', () => {
    expect(describeDatabase('sqlite:/var/lib/parley/parley.db')).toBe('SQLite at /var/lib/parley/parley.db');
    expect(describeDatabase('sqlite:./x.db')).toBe(`SQLite at ${join(process.cwd(), 'x.db')}`);
    expect(describeDatabase('postgres://parley:hunter2@db:5432/parley')).toBe(
      'PostgreSQL at postgres://parley:***@db:5432/parley',
    );
    expect(describeDatabase('postgres://parley:hunter2@db:5432/parley')).not.toContain('hunter2');
  });

  it('parses the values it is given', () => {
    expect(
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: 'postgresql://u@h:5432/d',
        PARLEY_DB_POOL_SIZE: '3',
        LOG_LEVEL: 'silent',
        PARLEY_RATE_LIMIT: '0',
        PARLEY_DEFAULT_COUNTRY: 'gb',
        PARLEY_KEY_CACHE_MS: '0',
      }),
    ).toMatchObject({
      port: 0,
      host: '127.0.0.1',
      databaseUrl: 'postgresql://u@h:5432/d',
      dbPoolSize: 3,
      logLevel: 'silent',
      rateLimitPerMinute: 0,
      defaultCountry: 'GB',
      keyCacheMs: 0,
    });
    expect(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).databaseUrl).toBe('sqlite::memory:');
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y' }).databaseUrl).toBe('postgres://x/y');
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT must be an integer from 0 to 65535 (got "abc")'],
    [{ PORT: '65536' }, 'PORT must be an integer from 0 to 65535 (got "65536")'],
    [{ PORT: '-1' }, 'PORT must be an integer from 0 to 65535 (got "-1")'],
    [{ PORT: '80.5' }, 'PORT must be an integer from 0 to 65535 (got "80.5")'],
    [{ PORT: '0x50' }, 'PORT must be an integer from 0 to 65535 (got "0x50")'],
    [{ PARLEY_DB_POOL_SIZE: '0' }, 'PARLEY_DB_POOL_SIZE must be an integer from 1 to 1000 (got "0")'],
    [{ PARLEY_RATE_LIMIT: 'lots' }, 'PARLEY_RATE_LIMIT must be an integer from 0 to 10000000 (got "lots")'],
    [{ PARLEY_KEY_CACHE_MS: '60000' }, 'PARLEY_KEY_CACHE_MS must be an integer from 0 to 1000 (got "60000")'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "loud")'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be sqlite:<path> or postgres://... (got "mysql://x")'],
    [{ DATABASE_URL: 'sqlite:' }, 'DATABASE_URL must be sqlite:<path> or postgres://... (got "sqlite:")'],
    [{ PARLEY_DEFAULT_COUNTRY: 'USA' }, 'PARLEY_DEFAULT_COUNTRY must be a two-letter country code (got "USA")'],
    [{ PARLEY_DEFAULT_COUNTRY: 'XX' }, 'PARLEY_DEFAULT_COUNTRY must be a two-letter country code (got "XX")'],
  ])('refuses %j with one line naming the variable', (env, message) => {
    const text = failure(env);
    expect(text).toBe(message);
    expect(text).not.toContain('\n');
  });
});

describe('PARLEY_TRUST_PROXY', () => {
  it('is off by default, a hop count (true is one hop), or a list of proxy addresses and CIDRs', () => {
    const trust = (value?: string) =>
      loadConfig(value === undefined ? {} : { PARLEY_TRUST_PROXY: value }).console.trustProxy;
    for (const off of [undefined, '', 'false', '0']) expect(trust(off), String(off)).toBe(false);
    expect(trust('true')).toEqual({ hops: 1 });
    expect(trust('1')).toEqual({ hops: 1 });
    expect(trust('3')).toEqual({ hops: 3 });
    expect(trust('10.0.0.5, 192.168.0.0/16,::1,fd00::/8,loopback')).toEqual({
      proxies: ['10.0.0.5', '192.168.0.0/16', '::1', 'fd00::/8', 'loopback'],
    });
  });

  it.each([
    'yes',
    'TRUE',
    '21',
    '-1',
    '10.0.0',
    '10.0.0.0/33',
    '::/129',
    '10.0.0.1,',
    '10.0.0.1,,10.0.0.2',
    'proxy.internal',
    '10.0.0.0/8/1',
  ])('refuses %j at start-up with one line saying what it takes', (value) => {
    const text = failure({ PARLEY_TRUST_PROXY: value });
    expect(text).toMatch(
      /^PARLEY_TRUST_PROXY must be false, true \(one proxy in front\), the number of proxies in front \(1 to 20\), or a comma list of the proxies' addresses or CIDRs like 10\.0\.0\.5,192\.168\.0\.0\/16 \(got "/,
    );
    expect(text).toContain(value);
    expect(text).not.toContain('\n');
  });
});
