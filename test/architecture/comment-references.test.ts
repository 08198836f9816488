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
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const CODE = ['src', 'test', 'bench', 'console/src'];
const SOURCE = /\.(ts|tsx|mjs|cjs)$/;

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** A file name or path a comment names: `leads.repository.ts`, `docs/imports.md`, `platform/db/wake.ts`. */
const FILE_REF = /(?<![\w./@*-])((?:\.\.?\/)?(?:[\w-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|tsx|md|mjs|cjs))(?![\w/])/g;

/** The comment part of a line of code: after `//`, or a line inside a block comment. */
function commentOf(line: string): string | null {
  const slashes = line.search(/(^|[^:'"`])\/\//);
  if (slashes >= 0) return line.slice(slashes);
  return /^\s*(\/\*|\*)/.test(line) ? line : null;
}

/**
 * Every file a comment names, that is not in the repository: a path relative to the repository, `src/`, `docs/`,
 * the commenting file's folder, or a bare file name that some file of the repository has.
 */
function danglingReferences(root: string): string[] {
  const all = [...CODE, 'docs', 'bin', '.'].flatMap((d) =>
    d === '.'
      ? readdirSync(root)
          .map((n) => join(root, n))
          .filter((p) => statSync(p).isFile())
      : filesUnder(join(root, d)),
  );
  const names = new Set(all.map((p) => basename(p)));
  const out: string[] = [];
  for (const file of CODE.flatMap((d) => filesUnder(join(root, d))).filter((p) => SOURCE.test(p))) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const comment = commentOf(line);
        if (!comment) return;
        for (const [, ref] of comment.matchAll(FILE_REF)) {
          const asTs = ref!.replace(/\.js$/, '.ts');
          const found =
            [root, join(root, 'src'), join(root, 'docs'), join(root, 'test'), dirname(file)].some(
              (base) => existsSync(join(base, ref!)) || existsSync(join(base, asTs)),
            ) ||
            (!ref!.includes('/') && names.has(ref!));
          if (!found) out.push(`${relative(root, file)}:${i + 1}: ${ref}`);
        }
      });
  }
  return out;
}

describe('references in comments', () => {
  it('name only files the repository has (a rule the contract sets is cited by the docs/ page that states it)', () => {
    expect(danglingReferences(ROOT)).toEqual([]);
  });

  it('the check bites: a comment naming a missing file or a file outside the repository is reported', () => {
    const root = mkdtempSync(join(tmpdir(), 'parley-refs-'));
    try {
      mkdirSync(join(root, 'src', 'leads'), { recursive: true });
      writeFileSync(join(root, 'src', 'leads', 'leads.repository.ts'), '// kept by leads.repository.ts\n');
      const outside = ['..', 'shared', 'rules'].join('/');
      writeFileSync(
        join(root, 'src', 'a.ts'),
        [
          `/** The rule of ${outside}.md (see compliance/gone.ts) */`,
          '// found: leads.repository.ts, leads/leads.repository.ts',
          "const url = 'http://example.com/x.ts'; // no file named",
        ].join('\n'),
      );
      expect(danglingReferences(root)).toEqual([`src/a.ts:1: ${outside}.md`, 'src/a.ts:1: compliance/gone.ts']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
