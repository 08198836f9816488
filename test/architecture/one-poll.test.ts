import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { typeScriptFiles } from './test-files.js';

/**
 * One poll for the suites: `until` (test/support/assert.ts) fails loudly, naming what it waited for and the last
 * value, where a hand-written deadline loop tends to end quietly and leave the check after it to fail on stale
 * data (or to pass on it). This finds a deadline compared with the clock (`Date.now() > end`,
 * `Date.now() < deadline`) anywhere in test/ but `until` itself and the files below, each with its reason.
 */
const ALLOWED: Record<string, string> = {
  'test/support/assert.ts': 'until itself',
  'test/support/processes.ts':
    'waits on a child process that fail at once when the child exits (its output in the error), not at the deadline',
};

const DEADLINE = /Date\.now\(\)\s*[<>]=?\s*[A-Za-z_]/;

const root = fileURLToPath(new URL('../..', import.meta.url));
const self = fileURLToPath(import.meta.url);

/** `file:line` of each deadline compared with the clock in `text`, comments left out. */
function deadlines(name: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => {
    const code = line.trim();
    if (code.startsWith('//') || code.startsWith('*')) return [];
    return DEADLINE.test(code) ? [`${name}:${i + 1}: ${code}`] : [];
  });
}

describe('one poll in test/', () => {
  it('finds a hand-written deadline loop (the check bites)', () => {
    const loop = [
      'const end = Date.now() + 5000;',
      'while (!done() && Date.now() < end) await sleep(20);',
      'if (Date.now() > deadline) throw new Error("late");',
    ].join('\n');
    expect(deadlines('x.ts', loop)).toHaveLength(2);
    expect(deadlines('y.ts', 'await until(() => done(), Boolean, 5000);')).toEqual([]);
    expect(deadlines('z.ts', '// a loop like `while (Date.now() < end)` is what this finds')).toEqual([]);
  });

  it('has no deadline loop outside until and the allowed files', () => {
    const found = typeScriptFiles(join(root, 'test'), self).flatMap((path) => {
      const name = relative(root, path);
      return name in ALLOWED ? [] : deadlines(name, readFileSync(path, 'utf8'));
    });
    expect(found).toEqual([]);
  });

  it('lists only files that still need it', () => {
    const stale = Object.keys(ALLOWED).filter(
      (name) =>
        name !== 'test/support/assert.ts' && deadlines(name, readFileSync(join(root, name), 'utf8')).length === 0,
    );
    expect(stale).toEqual([]);
  });
});
