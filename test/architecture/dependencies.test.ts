import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}

/** Runs the project's rules (.dependency-cruiser.cjs) over `dir`, as `npx depcruise` would. */
async function violations(dir: string, cwd = ROOT): Promise<Violation[]> {
  const { stdout } = await run(
    DEPCRUISE,
    [dir, '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    { cwd, maxBuffer: 64 * 1024 * 1024 },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('one direction of dependencies', () => {
  const scratch = mkdtempSync(join(ROOT, '.depcruise-fixture-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('src/ has no import cycle and breaks no layering rule', async () => {
    const found = await violations('src');
    expect(found.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
  }, 60_000);

  it('the rules bite: a cycle, a queue that imports a handler and a capability that imports the agent are reported', async () => {
    // A miniature tree with the mistakes this project once had, checked with the same rules.
    const src = join(scratch, 'src');
    for (const d of ['jobs', 'agent', 'leads', 'platform']) mkdirSync(join(src, d), { recursive: true });
    writeFileSync(
      join(src, 'jobs', 'catalog.ts'),
      "import { runTurn } from '../agent/turn.js';\nexport const handlers = { runTurn };\n",
    );
    writeFileSync(
      join(src, 'agent', 'turn.ts'),
      "import { handlers } from '../jobs/catalog.js';\nexport const runTurn = () => handlers;\n",
    );
    writeFileSync(
      join(src, 'leads', 'leads.service.ts'),
      "import { runTurn } from '../agent/turn.js';\nexport const create = () => runTurn();\n",
    );
    writeFileSync(join(scratch, 'tsconfig.json'), readFileSync(join(ROOT, 'tsconfig.json')));
    const found = await violations('src', scratch);
    const names = new Set(found.map((v) => v.rule.name));
    expect(names).toContain('no-circular');
    expect(names).toContain('queue-and-outbox-are-leaves');
    expect(names).toContain('capabilities-trigger-by-name');
  }, 60_000);
});

describe('storage behind its own door', () => {
  const files = sourceFiles(join(ROOT, 'src')).map((f) => ({
    path: relative(ROOT, f).replaceAll('\\', '/'),
    text: readFileSync(f, 'utf8'),
  }));
  const storage = (path: string) => path.endsWith('.repository.ts') || path.startsWith('src/platform/db/');

  it('SQL is written only in *.repository.ts files and platform/db/', () => {
    const query =
      /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|executeQuery)\(|\bsql`|\.(forUpdate|forShare|skipLocked)\(/;
    const offenders = files.filter((f) => !storage(f.path) && query.test(f.text)).map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it('no dialect branch outside platform/db/', () => {
    const branch = /dialect\s*[!=]==|[!=]==\s*['"](postgres|sqlite)['"]|instanceof\s+(Postgres|Sqlite)/;
    const offenders = files
      .filter((f) => !f.path.startsWith('src/platform/db/') && branch.test(f.text))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it('the checks above would see an offender (they are not vacuous)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files.some((f) => f.path.endsWith('.repository.ts') && /\.selectFrom\(/.test(f.text))).toBe(true);
    expect(
      files.some((f) => f.path.startsWith('src/platform/db/') && /dialect\w*\(\w*\)\s*===\s*'postgres'/.test(f.text)),
    ).toBe(true);
  });
});
