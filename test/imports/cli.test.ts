import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { findOrganizationByName } from '../../src/organizations/organizations.repository.js';
import { DEFAULT_SCOPES } from '../../src/platform/auth/scopes.js';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { dialects, freshDatabase } from '../support/harness.js';
import { csvLine, importPhone } from './support.js';
import { until } from '../support/assert.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/parley.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function parley(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: root, env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, timeout: 120_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  // The CLI runs from the compiled tree, as it does for users.
  const build = await new Promise<Run>((resolve) => {
    execFile('npm', ['run', 'build', '--silent'], { cwd: root, timeout: 240_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? 1 : 0, stdout, stderr }),
    );
  });
  if (build.code !== 0 && !/error TS\d+/.test(build.stdout + build.stderr))
    throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
}, 300_000);

for (const dialect of dialects()) {
  describe(`parley import leads [${dialect}]`, () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let store: Store;
    let env: Record<string, string>;
    const dir = mkdtempSync(join(tmpdir(), 'parley-import-cli-'));
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const orgId = async (name: string) => (await findOrganizationByName(store.db, name))!.id;
    const leadsOf = async (name: string) =>
      store.db
        .selectFrom('leads')
        .select(['phone', 'email', 'first_name', 'additional_info', 'sms_status'])
        .where('organization_id', '=', await orgId(name))
        .orderBy('phone')
        .execute();

    beforeAll(async () => {
      database = await freshDatabase(dialect);
      env = { DATABASE_URL: database.url };
      store = openStore(database.url, 2);
      await migrateToLatest(store);
      for (const org of ['cli-a', 'cli-b', 'cli-c', 'cli-d']) await issueKey(store.db, org, [...DEFAULT_SCOPES]);
    });
    afterAll(async () => {
      await store?.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('imports a file, prints a summary and writes the rejects file with the original columns plus reason', async () => {
      const [p1, p2] = [importPhone(), importPhone()];
      const path = file('a.csv', `\uFEFFFirst Name;Mobile;Notes\r\nAnn;${p1};"a;b"\r\nBob;${p2};\r\nNope;12;why\r\n`);
      const rejects = join(dir, 'a-rejects.csv');
      const run = await parley(['import', 'leads', path, '--org', 'cli-a', '--rejects', rejects], env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(/^import completed: 3 rows in [\d.]+ s \(\d+ rows\/s\)$/m);
      expect(run.stdout).toContain('created 2, updated 0, skipped 0, rejected 1');
      expect(run.stdout).toContain(`rejected rows: ${rejects}`);
      expect(readFileSync(rejects, 'utf8')).toBe(
        'First Name,Mobile,Notes,reason,warnings\r\nNope,12,why,"phone ""12"" is not a valid phone number",\r\n',
      );
      expect((await leadsOf('cli-a')).map((l) => [l.first_name, l.phone, JSON.parse(l.additional_info)])).toEqual(
        [
          ['Ann', p1, { Notes: 'a;b' }],
          ['Bob', p2, {}],
        ].sort((a, b) => String(a[1]).localeCompare(String(b[1]))),
      );
      const again = await parley(['import', 'leads', path, '--org', 'cli-a'], env);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('created 0, updated 0, skipped 2, rejected 1');
      expect(await leadsOf('cli-a')).toHaveLength(2);
    });

    it('imports a row without its bad field by default, with a warnings count, and lists extra values after the reason', async () => {
      const [p1, p2, p3] = [importPhone(), importPhone(), importPhone()];
      const path = file(
        'warn.csv',
        `First Name,Mobile,Email\r\nAnn,${p1},zoë@@mail.example.com\r\nBob,${p2},bob@example.com,extra,values\r\nCy,${p3},zoë.cy@mail.example.com\r\n`,
      );
      const rejects = join(dir, 'warn-rejects.csv');
      const run = await parley(['import', 'leads', path, '--org', 'cli-d', '--rejects', rejects], env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('created 2, updated 0, skipped 0, rejected 1, imported with warnings 1');
      expect(run.stdout).toContain(`rejected rows: ${rejects}`);
      // Both stand under their names; the surplus values come after them.
      expect(readFileSync(rejects, 'utf8')).toBe(
        [
          'First Name,Mobile,Email,reason,warnings',
          `Ann,'${p1},zoë@@mail.example.com,,"email ""zoë@@mail.example.com"" is not a valid email address: imported without it"`,
          `Bob,'${p2},bob@example.com,the row has 5 values but the header has 3 columns,,extra,values`,
          '',
        ].join('\r\n'),
      );
      const leads = (await leadsOf('cli-d')).filter((l) => [p1, p2, p3].includes(l.phone!));
      expect(leads.map((l) => [l.first_name, l.email]).sort((a, b) => a[0]!.localeCompare(b[0]!))).toEqual([
        ['Ann', null],
        ['Cy', 'zoë.cy@mail.example.com'],
      ]);
    });

    it('writes rejected cells that a spreadsheet would run as a formula with a leading quote (phone numbers too)', async () => {
      const path = file('formula.csv', 'First Name,Mobile,Notes\r\n=1+2,+1 12,@SUM(A1)\r\n"-x","+12","\tcmd"\r\n');
      const rejects = join(dir, 'formula-rejects.csv');
      const run = await parley(['import', 'leads', path, '--org', 'cli-c', '--rejects', rejects], env);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('created 0, updated 0, skipped 0, rejected 2');
      expect(readFileSync(rejects, 'utf8')).toBe(
        [
          'First Name,Mobile,Notes,reason,warnings',
          `'=1+2,'+1 12,'@SUM(A1),"phone ""+1 12"" is not a valid phone number",`,
          `'-x,'+12,"'\tcmd","phone ""+12"" is not a valid phone number",`,
          '',
        ].join('\r\n'),
      );
    });

    it.each([
      [['import', 'leads', '/nonexistent/x.csv', '--org', 'cli-a'], /cannot read \/nonexistent\/x.csv: no such file/],
      [['import', 'leads', 'FILE', '--org', 'no-such-org'], /no organization named "no-such-org"/],
      [['import', 'leads', 'FILE', '--org', 'cli-a', '--profile', 'ghost'], /CustomerProfile with name ghost/],
      [['import', 'leads', 'FILE', '--org', 'cli-a', '--map', 'Mobile=shoe'], /"shoe" is not a lead field/],
      [
        ['import', 'leads', 'FILE', '--org', 'cli-a', '--map', 'Cell=phone'],
        /--map names columns the file does not have: Cell/,
      ],
      [
        ['import', 'leads', 'FILE', '--org', 'cli-a', '--on-duplicate', 'merge'],
        /--on-duplicate must be skip or update/,
      ],
      [
        ['import', 'leads', 'FILE', '--org', 'cli-a', '--encoding', 'ebcdic'],
        /--encoding must be one of utf-8, utf-16le, utf-16be, windows-1252/,
      ],
    ])('%j fails with exit 2 and a clear message, writing nothing', async (args, message) => {
      const path = file('ok.csv', `First Name,Mobile\nZed,${importPhone()}\n`);
      const before = await store.db.selectFrom('imports').select('id').execute();
      const run = await parley(
        args.map((a) => (a === 'FILE' ? path : a)),
        env,
      );
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(await store.db.selectFrom('imports').select('id').execute()).toHaveLength(before.length);
    });

    it('--dry-run counts and writes nothing', async () => {
      const path = file('dry.csv', `First Name,Mobile\nDry,${importPhone()}\nBad,1\n`);
      const before = {
        leads: (await leadsOf('cli-c')).length,
        imports: (await store.db.selectFrom('imports').select('id').execute()).length,
      };
      const run = await parley(['import', 'leads', path, '--org', 'cli-c', '--dry-run'], env);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('dry run (nothing written): 2 rows');
      expect(run.stdout).toContain('created 1, updated 0, skipped 0, rejected 1');
      expect((await leadsOf('cli-c')).length).toBe(before.leads);
      expect((await store.db.selectFrom('imports').select('id').execute()).length).toBe(before.imports);
    });

    it('killed mid-file, then run again, ends as one clean run', async () => {
      const lines = ['First Name,Phone,Seq'];
      const phones = Array.from({ length: 3000 }, () => importPhone());
      for (let i = 0; i < 6000; i++) lines.push(csvLine([`N${i % 3000}`, phones[i % 3000]!, String(i)]));
      const path = file('kill.csv', `${lines.join('\n')}\n`);
      const child = spawn(process.execPath, [bin, 'import', 'leads', path, '--org', 'cli-b', '--batch-size', '50'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
        stdio: 'ignore',
      });
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      const org = await orgId('cli-b');
      await until(
        async () =>
          Number(
            (
              await store.db
                .selectFrom('leads')
                .select((eb) => eb.fn.countAll().as('n'))
                .where('organization_id', '=', org)
                .executeTakeFirstOrThrow()
            ).n,
          ),
        (n) => n > 0,
        60_000,
        { what: 'the import committed a batch', every: 10 },
      );
      child.kill('SIGKILL');
      await exited;
      const partial = (await leadsOf('cli-b')).length;
      expect(partial).toBeLessThan(3000);
      expect((await parley(['import', 'leads', path, '--org', 'cli-b', '--batch-size', '50'], env)).code).toBe(0);
      expect((await parley(['import', 'leads', path, '--org', 'cli-c', '--batch-size', '50'], env)).code).toBe(0);
      const strip = (rows: Awaited<ReturnType<typeof leadsOf>>) =>
        rows.map((r) => ({ ...r, additional_info: JSON.parse(r.additional_info) }));
      const [a, c] = [
        strip(await leadsOf('cli-b')),
        strip((await leadsOf('cli-c')).filter((l) => phones.includes(l.phone!))),
      ];
      expect(a).toHaveLength(3000);
      expect(a).toEqual(c);
      // The later duplicate of each phone won: its Seq is from the second half of the file.
      expect(a.every((l) => Number(l.additional_info.Seq) >= 3000)).toBe(true);
    }, 120_000);
  });
}
