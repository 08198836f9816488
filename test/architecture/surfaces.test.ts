import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { config, cruise, importedFromOutside, ROOTS } from '../../bin/dev/architecture-graph.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const surfaces = config().publicSurfaces;

describe("each capability's public surface is declared in one place (.dependency-cruiser.cjs)", () => {
  const modules = cruise();

  it('names every folder of src/ but the roots and platform/, and no other', () => {
    const folders = readdirSync(join(ROOT, 'src')).filter((f) => statSync(join(ROOT, 'src', f)).isDirectory());
    const declared = folders.filter((f) => !ROOTS.includes(f) && f !== 'platform');
    expect(declared.length).toBeGreaterThan(20);
    expect(Object.keys(surfaces).sort()).toEqual(declared.sort());
  });

  it('lists files that exist', () => {
    const missing = Object.entries(surfaces).flatMap(([folder, files]) =>
      files.map((f) => `${folder}/${f}`).filter((path) => !existsSync(join(ROOT, 'src', path))),
    );
    expect(missing).toEqual([]);
  });

  it('is exactly what other folders import: a file nobody outside uses leaves its surface', async () => {
    // A reach beyond the surface is the `capability-surfaces` rule's (dependencies.test.ts runs it on src/);
    // this side keeps the map from listing more than is used, so it only grows by a deliberate edit.
    const used = importedFromOutside(await modules);
    const unused = Object.entries(surfaces).flatMap(([folder, files]) =>
      files.filter((f) => !used.get(folder)?.has(f)).map((f) => `${folder}/${f}`),
    );
    expect(unused).toEqual([]);
  }, 120_000);

  it("the check bites: a file only its own folder or a root imports is not part of the folder's surface", () => {
    const used = importedFromOutside([
      { source: 'src/timeline/timeline.service.ts', dependencies: [{ resolved: 'src/settings/settings.service.ts' }] },
      {
        source: 'src/settings/settings.service.ts',
        dependencies: [{ resolved: 'src/settings/settings.repository.ts' }],
      },
      { source: 'src/worker/catalog.ts', dependencies: [{ resolved: 'src/settings/assignment-pool.ts' }] },
      { source: 'src/app.ts', dependencies: [{ resolved: 'src/settings/settings.routes.ts' }] },
    ]);
    expect([...(used.get('settings') ?? [])]).toEqual(['settings.service.ts']);
  });
});

describe('the capability-surfaces rule bites', () => {
  const scratch = mkdtempSync(join(ROOT, '.depcruise-surfaces-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), text);
  };

  it('on a file another folder imports outside its surface, and not on the surface, a root or platform/', async () => {
    // A miniature tree under the real map: settings.repository.ts is private to settings/, settings.service.ts not.
    write('src/settings/settings.repository.ts', 'export const row = 1;\n');
    write(
      'src/settings/settings.service.ts',
      "import { row } from './settings.repository.js';\nexport const s = row;\n",
    );
    write('src/platform/clock.ts', 'export const now = 0;\n');
    write(
      'src/timeline/timeline.service.ts',
      [
        "import { row } from '../settings/settings.repository.js';",
        "import { s } from '../settings/settings.service.js';",
        "import { now } from '../platform/clock.js';",
        'export const t = row + s + now;',
      ].join('\n'),
    );
    write(
      'src/worker/catalog.ts',
      "import { row } from '../settings/settings.repository.js';\nexport const w = row;\n",
    );
    write('tsconfig.json', readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'));
    const { stdout } = await promisify(execFile)(
      join(ROOT, 'node_modules', '.bin', 'depcruise'),
      ['src', '--config', join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json'],
      { cwd: scratch, maxBuffer: 16 * 1024 * 1024 },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    const violations = (
      JSON.parse(stdout) as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } }
    ).summary.violations;
    expect(violations.filter((v) => v.rule.name === 'capability-surfaces').map((v) => `${v.from} -> ${v.to}`)).toEqual([
      'src/timeline/timeline.service.ts -> src/settings/settings.repository.ts',
    ]);
  }, 60_000);
});
