import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { openStore } from '../../src/platform/db/connect.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { until } from '../support/assert.js';
import { clientFor, dialects, freshDatabase, live, uniquePhone } from '../support/harness.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const KEY_LINE = /^pk_live_[A-Za-z0-9_-]{43}$/;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the compiled `parley` command with only the environment given (plus PATH), from the package or another directory. */
function parley(args: string[], env: Record<string, string>, cwd = root): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(root, 'bin/parley.js'), ...args],
      { cwd, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');
const lastLine = (text: string) => lines(text).at(-1) ?? '';

beforeAll(async () => {
  // The CLI runs from the compiled tree, as it does for users.
  const build = await new Promise<Run>((resolve) => {
    execFile('npm', ['run', 'build', '--silent'], { cwd: root, timeout: 240_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, stdout, stderr }),
    );
  });
  if (build.code === 0) return;
  // tsc still emits on type errors, and `npm test` reports those in its typecheck step; anything else is fatal here.
  if (!/error TS\d+/.test(build.stdout + build.stderr))
    throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
  console.warn(`npm run build reported type errors; testing the emitted CLI anyway:\n${build.stdout.slice(0, 2000)}`);
}, 300_000);

for (const dialect of dialects()) {
  describe(`parley CLI [${dialect}]`, () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let env: Record<string, string>;
    let server: RunningServer | undefined;
    const api = (key: string) => clientFor(server!.address, key);

    beforeAll(async () => {
      database = await freshDatabase(dialect);
      env = { DATABASE_URL: database.url };
    });

    afterAll(async () => {
      await server?.stop();
      await database?.drop();
    });

    it('migrate brings a fresh database up to date, then has nothing to do', async () => {
      const first = await parley(['migrate'], env);
      expect(first).toMatchObject({ code: 0, stderr: '' });
      expect(first.stdout).toMatch(/^applied: 0001_core(, \w+)*\n$/);
      const second = await parley(['migrate'], env);
      expect(second).toEqual({ code: 0, stdout: 'database is up to date\n', stderr: '' });
      const store = openStore(database.url, 1);
      try {
        const tables = await store.db.introspection.getTables();
        expect(tables.map((t) => t.name)).toEqual(
          expect.arrayContaining(['organizations', 'api_keys', 'leads', 'events']),
        );
      } finally {
        await store.close();
      }
    });

    it('keys create prints the key as the last line, and the key works against a server on the same database', async () => {
      const run = await parley(['keys', 'create', '--org', 'acme', '--name', 'ci'], env);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      expect(lastLine(run.stdout)).toMatch(KEY_LINE);
      expect(lines(run.stdout).filter((l) => l.includes('pk_live_'))).toHaveLength(1);
      server = await startServer(
        loadConfig({
          DATABASE_URL: database.url,
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'silent',
          PARLEY_RATE_LIMIT: '0',
        }),
      );
      const client = api(lastLine(run.stdout));
      const created = await client.post('/leads/create', { firstName: 'Cli', phone: uniquePhone() });
      expect(created.status).toBe(200);
      expect((await client.get(`/leads/${created.body.id}`)).body.firstName).toBe('Cli');
    });

    it('--scopes leads:read gives a read-only key of the same organization', async () => {
      const run = await parley(['keys', 'create', '--org', 'acme', '--scopes', 'leads:read'], env);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('scopes: leads:read\n');
      const reader = api(lastLine(run.stdout));
      const listed = await reader.get('/leads');
      expect(listed.status).toBe(200);
      expect(listed.body.leads.map((l) => live(l).firstName)).toEqual(['Cli']);
      const write = await reader.post('/leads/create', { firstName: 'No', phone: uniquePhone() });
      expect(write.status).toBe(403);
      expect(write.body.message).toBe('Forbidden');
    });
  });
}

describe('parley CLI, revocation, serve and input errors [sqlite]', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let env: Record<string, string>;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    database = await freshDatabase('sqlite');
    env = { DATABASE_URL: database.url };
  });

  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('keys list shows each key by prefix; keys revoke makes the key 403', async () => {
    const key = lastLine((await parley(['keys', 'create', '--org', 'listed'], env)).stdout);
    const prefix = key.slice(0, 16);
    const list = await parley(['keys', 'list', '--org', 'listed'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain(key);
    expect(lines(list.stdout).find((l) => l.startsWith(`${prefix}\t`))).toMatch(
      new RegExp(`^${prefix}\\tactive\\tleads:read,`),
    );

    server ??= await startServer(
      loadConfig({
        DATABASE_URL: database.url,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        PARLEY_RATE_LIMIT: '0',
      }),
    );
    const client = clientFor(server.address, key);
    expect((await client.get('/leads')).status).toBe(200);
    const revoke = await parley(['keys', 'revoke', prefix], env);
    expect(revoke).toEqual({ code: 0, stdout: 'revoked 1 key\n', stderr: '' });
    // Refused once the key cache's entry lapses (keyCacheMs): waited for as an event, not a fixed sleep.
    // Real time: the cache lapses by the wall clock (no step makes it), and the revoke came from another process.
    const refused = await until(
      () => client.get('/leads'),
      (r) => r.status === 403,
      server.deps.config.keyCacheMs + 10_000,
    );
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('Forbidden');
    expect(
      lines((await parley(['keys', 'list', '--org', 'listed'], env)).stdout).find((l) => l.startsWith(prefix)),
    ).toContain('\trevoked\t');
    const twice = await parley(['keys', 'revoke', prefix], env);
    expect(twice.code).not.toBe(0);
    expect(twice.stderr).toBe(
      `parley: no active key with prefix ${prefix} in SQLite at ${database.url.slice('sqlite:'.length)}\n`,
    );
  });

  it('keys list starts with a header line naming its columns', async () => {
    await parley(['keys', 'create', '--org', 'headed', '--name', 'laptop'], env);
    const list = await parley(['keys', 'list', '--org', 'headed'], env);
    expect(list.code).toBe(0);
    const [header, row, ...rest] = lines(list.stdout);
    expect(header).toBe('PREFIX\tSTATE\tSCOPES\tCREATED\tNAME');
    expect(row!.split('\t')).toHaveLength(5);
    expect(row).toMatch(/^pk_live_\S+\tactive\t.+\tlaptop$/);
    expect(rest).toEqual([]);
  });

  it('keys create says which database the key is in and how to use it, the key still the last line', async () => {
    const run = await parley(['keys', 'create', '--org', 'told'], env);
    expect(run.code).toBe(0);
    expect(lines(run.stdout)).toContain(
      `database: SQLite at ${database.url.slice('sqlite:'.length)} (the server must use this same database)`,
    );
    expect(run.stdout).toMatch(/x-api-key/);
    expect(lastLine(run.stdout)).toMatch(KEY_LINE);
    expect(lines(run.stdout).filter((l) => l.includes('pk_live_'))).toHaveLength(1);
  });

  it('keys create names the URL of the configured port, not a fixed one', async () => {
    const run = await parley(['keys', 'create', '--org', 'ported'], { ...env, PORT: '9137' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('http://localhost:9137/v1/leads');
    expect(run.stdout).not.toContain('localhost:8080');
    const published = await parley(['keys', 'create', '--org', 'published'], {
      ...env,
      PARLEY_PUBLIC_URL: 'https://leads.example.com',
    });
    expect(published.stdout).toContain('https://leads.example.com/v1/leads');
  });

  it('the default database does not depend on the directory a command runs from', async () => {
    // Without DATABASE_URL every command uses the package's data/ directory (PARLEY_DATA_DIR moves it), from anywhere.
    const elsewhere = mkdtempSync(join(tmpdir(), 'parley-cwd-'));
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-data-'));
    try {
      const packageDefault = await parley(['keys', 'list', '--org', `nobody-${process.pid}`], {}, elsewhere);
      expect(packageDefault.stderr).toBe(
        `parley: no organization named "nobody-${process.pid}" in SQLite at ${join(root, 'data', 'parley.db')}\n`,
      );
      const made = await parley(['keys', 'create', '--org', 'roaming'], { PARLEY_DATA_DIR: dataDir }, elsewhere);
      expect(made.code).toBe(0);
      expect(made.stdout).toContain(`database: SQLite at ${join(dataDir, 'parley.db')}`);
      const listed = await parley(['keys', 'list', '--org', 'roaming'], { PARLEY_DATA_DIR: dataDir }, root);
      expect(listed.code).toBe(0);
      expect(lines(listed.stdout).some((l) => l.startsWith(lastLine(made.stdout).slice(0, 16)))).toBe(true);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses an unknown scope with a non-zero exit and a message, creating nothing', async () => {
    const run = await parley(['keys', 'create', '--org', 'nobody', '--scopes', 'leads:read,leads:destroy'], env);
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toContain('pk_live_');
    expect(run.stderr).toContain('unknown scope(s): leads:destroy');
    const list = await parley(['keys', 'list', '--org', 'nobody'], env);
    expect(list.code).not.toBe(0);
    expect(list.stderr).toBe(
      `parley: no organization named "nobody" in SQLite at ${database.url.slice('sqlite:'.length)}\n`,
    );
  });

  it('serve listens, answers with a key made by the CLI, and exits 0 on SIGTERM', async () => {
    const key = lastLine((await parley(['keys', 'create', '--org', 'served'], env)).stdout);
    const child = spawn(process.execPath, ['bin/parley.js', 'serve'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      let out = '';
      const address = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 30_000);
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const line = out.split('\n').find((l) => l.includes('"parley listening"'));
          if (line) {
            clearTimeout(timer);
            resolve((JSON.parse(line) as { address: string }).address);
          }
        });
      });
      expect((await fetch(`${address}/healthz`)).status).toBe(200);
      // The start-up lines say where the API reference is and how to make a key for this database.
      const logged = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg: string; url?: string; database?: string });
      const reference = logged.find((l) => l.msg.startsWith('API reference: '));
      expect(reference?.url).toBe(`${address}/docs`);
      expect((await fetch(reference!.url!)).status).toBe(200);
      const keyHint = logged.find((l) => l.msg.includes('npx parley keys create --org NAME'));
      expect(keyHint?.msg).toContain(`SQLite at ${database.url.slice('sqlite:'.length)}`);
      expect(logged.find((l) => l.msg === 'parley listening')?.database).toBe(
        `SQLite at ${database.url.slice('sqlite:'.length)}`,
      );
      expect((await clientFor(address, key).get('/leads')).body).toEqual({ leads: [], nextToken: null });
      expect(out).not.toContain(key);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('serve with a bad PORT exits non-zero with one line naming PORT', async () => {
    const run = await parley(['serve'], { ...env, PORT: 'abc' });
    expect(run.code).not.toBe(0);
    expect(run.stdout).toBe('');
    expect(lines(run.stderr)).toEqual(['parley: PORT must be an integer from 0 to 65535 (got "abc")']);
  });

  it('a bad DATABASE_URL stops a key command the same way', async () => {
    const run = await parley(['keys', 'list', '--org', 'acme'], { DATABASE_URL: 'mysql://x' });
    expect(run.code).not.toBe(0);
    expect(lines(run.stderr)).toEqual([
      'parley: DATABASE_URL must be sqlite:<path> or postgres://... (got "mysql://x")',
    ]);
  });
});
