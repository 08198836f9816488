import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/platform/db/connect.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { loadConfig } from '../../src/platform/config.js';
import { buildCli, root } from '../support/processes.js';
import { dialects, freshDatabase } from '../support/harness.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function parley(args: string[], env: Record<string, string>, stdin?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [join(root, 'bin/parley.js'), ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    if (stdin !== undefined) child.stdin!.end(stdin);
    else child.stdin!.end();
  });
}

const lastLine = (text: string) => text.split('\n').filter(Boolean).at(-1) ?? '';

beforeAll(buildCli, 300_000);

for (const dialect of dialects()) {
  describe(`parley users create [${dialect}]`, () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let server: RunningServer | undefined;
    beforeAll(async () => {
      database = await freshDatabase(dialect);
    });
    afterAll(async () => {
      await server?.stop();
      await database?.drop();
    });

    const login = async (email: string, password: string) =>
      fetch(`${server!.address}/console/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });

    it('prints a one-time password that signs in to the console, with the role asked for', async () => {
      const env = { DATABASE_URL: database.url };
      const run = await parley(
        ['users', 'create', '--org', 'Acme Inc', '--email', 'Boss@Example.com', '--role', 'admin'],
        env,
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('user: boss@example.com (admin) in organization Acme Inc');
      const password = lastLine(run.stdout);
      expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);

      server = await startServer(
        loadConfig({
          DATABASE_URL: database.url,
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'silent',
          PARLEY_WORKER: 'false',
        }),
      );
      const res = await login('boss@example.com', password);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        user: { email: 'boss@example.com', role: 'admin', organizationName: 'Acme Inc' },
      });
    });

    it('--password-stdin takes the password from standard input and prints none', async () => {
      const env = { DATABASE_URL: database.url };
      const run = await parley(
        ['users', 'create', '--org', 'Acme Inc', '--email', 'agent@example.com', '--role', 'agent', '--password-stdin'],
        env,
        'correct horse battery\n',
      );
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).not.toContain('correct horse');
      expect((await login('agent@example.com', 'correct horse battery')).status).toBe(200);
      expect((await login('agent@example.com', 'correct horse battery\n')).status).toBe(401);
    });

    it('refuses a bad role, a short password and a taken email with a message and a non-zero exit, creating nothing', async () => {
      const env = { DATABASE_URL: database.url };
      const role = await parley(
        ['users', 'create', '--org', 'Acme Inc', '--email', 'x@example.com', '--role', 'owner'],
        env,
      );
      expect(role.code).toBe(2);
      expect(role.stderr).toContain('--role must be one of viewer, agent, admin');
      const short = await parley(
        ['users', 'create', '--org', 'Acme Inc', '--email', 'y@example.com', '--role', 'viewer', '--password-stdin'],
        env,
        'short\n',
      );
      expect(short.code).toBe(1);
      expect(short.stderr).toContain('at least 12 characters');
      const taken = await parley(
        ['users', 'create', '--org', 'Other', '--email', 'BOSS@example.com', '--role', 'viewer'],
        env,
      );
      expect(taken.code).toBe(1);
      expect(taken.stderr).toContain('already exists');
      const store = openStore(database.url, 1);
      try {
        const emails = (await store.db.selectFrom('users').select('email').execute()).map((r) => r.email).sort();
        expect(emails).toEqual(['agent@example.com', 'boss@example.com']);
        expect(
          await store.db.selectFrom('organizations').select('id').where('name', '=', 'Other').executeTakeFirst(),
        ).toBeUndefined();
      } finally {
        await store.close();
      }
    });
  });
}
