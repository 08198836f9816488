import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { typeScriptFiles } from './test-files.js';

/**
 * "Nothing was sent" checked after a fixed wait passes whenever the worker is slower than the wait: it has then
 * tested nothing. A negative check belongs after the step that would have done the thing (the worker's step,
 * `ts.runDue()`) or after a positive event that proves the worker got past that point (`until(...)`).
 *
 * This finds a fixed wait (`sleep(`, `setTimeout` wrapped in a promise, `page.waitForTimeout(`, `quietFor(`)
 * followed within WINDOW lines by a negative assertion, with no `until(`/`eventually(`/`runDue(`/`waitFor`
 * between them. A case that must stay (a child process with no step to drive, a wait that is the subject of the
 * test) carries `// negative-after-wait: <why>` on the wait's line or the line above it, and is listed below.
 */
const WINDOW = 6;

const WAIT = /\bsleep\(|new Promise(<\w+>)?\(\s*\(?\w*\)?\s*=>\s*setTimeout\(|\bwaitForTimeout\(|\bquietFor\(/;
const NEGATIVE =
  /\.not\.|toHaveLength\(0\)|\btoBe\(0\)|\btoBe\(false\)|toEqual\(\[\]\)|toBeUndefined\(\)|toBeNull\(\)|toBeFalsy\(\)/;
/** A positive event between the wait and the check: the check then no longer rests on the wait. */
const POSITIVE = /\buntil\(|\beventually\(|\brunDue\(|\bwaitFor\w*\((?!.*Timeout)|\bwaitUntil\w*\(/;
const ALLOWED = /negative-after-wait:\s*\S/;

const testDir = fileURLToPath(new URL('..', import.meta.url));
const self = fileURLToPath(import.meta.url);

const indent = (line: string) => line.length - line.trimStart().length;

interface Finding {
  at: string;
  wait: string;
  check: string;
}

/** Every wait-then-negative in `text`; `allowed` gets the ones marked with a justification. */
function findNegativesAfterWaits(text: string, name: string, allowed: Finding[] = []): Finding[] {
  const lines = text.split('\n');
  const found: Finding[] = [];
  lines.forEach((line, i) => {
    if (!WAIT.test(line) || /^\s*(\/\/|\*)/.test(line)) return;
    // A wait inside a polling loop (`while (!done && Date.now() < end) await sleep(20)`) is a hand-written `until`.
    if (/^\s*while\s*\(/.test(line)) return;
    // The helper's own definition is no use of it.
    if (/export (const|async function|function) (sleep|quietFor)\b/.test(line)) return;
    for (let j = i + 1; j <= Math.min(lines.length - 1, i + WINDOW); j++) {
      const next = lines[j]!;
      if (POSITIVE.test(next) || WAIT.test(next)) break;
      // The end of the wait's block (a polling loop's body, the test) ends the look-ahead.
      if (next.trim() !== '' && indent(next) < indent(line)) break;
      if (NEGATIVE.test(next)) {
        const finding = { at: `${name}:${i + 1}`, wait: line.trim(), check: next.trim() };
        if (ALLOWED.test(line) || ALLOWED.test(lines[i - 1] ?? '')) allowed.push(finding);
        else found.push(finding);
        break;
      }
    }
  });
  return found;
}

describe('no negative assertion rests on a fixed wait', () => {
  it('finds the pattern it forbids (the check can fail)', () => {
    const bad = ['  await sleep(300);', '  expect(sent).toHaveLength(0);'].join('\n');
    expect(findNegativesAfterWaits(bad, 'bad.ts')).toHaveLength(1);
    const inline = ['  await new Promise((r) => setTimeout(r, 300));', '  expect(x).not.toContain(y);'].join('\n');
    expect(findNegativesAfterWaits(inline, 'inline.ts')).toHaveLength(1);
    const stepped = ['  await ts.runDue();', '  expect(sent).toHaveLength(0);'].join('\n');
    expect(findNegativesAfterWaits(stepped, 'stepped.ts')).toEqual([]);
    // "Still scheduled" after a wait is no event: a worker that never ran passes it too.
    const still = ['  await sleep(300);', "  expect(m.status).toBe('scheduled');", '  expect(sent).toEqual([]);'].join(
      '\n',
    );
    expect(findNegativesAfterWaits(still, 'still.ts')).toHaveLength(1);
    const polling = [
      '  for (;;) {',
      '    if (await done()) break;',
      '    await sleep(10);',
      '  }',
      '  expect(n).toBe(0);',
    ].join('\n');
    expect(findNegativesAfterWaits(polling, 'polling.ts')).toEqual([]);
    const afterEvent = [
      '  await sleep(50);',
      '  await until(() => turns(), (t) => t.length === 1);',
      '  expect(sent).toEqual([]);',
    ].join('\n');
    expect(findNegativesAfterWaits(afterEvent, 'event.ts')).toEqual([]);
    const allowed: Finding[] = [];
    const justified = [
      '  // negative-after-wait: a child process has no step',
      '  await sleep(300);',
      '  expect(n).toBe(0);',
    ].join('\n');
    expect(findNegativesAfterWaits(justified, 'justified.ts', allowed)).toEqual([]);
    expect(allowed).toHaveLength(1);
  });

  it('no file in test/ asserts "nothing happened" after a fixed wait', () => {
    const allowed: Finding[] = [];
    const found = typeScriptFiles(testDir, self).flatMap((f) =>
      findNegativesAfterWaits(readFileSync(f, 'utf8'), relative(testDir, f), allowed),
    );
    expect(found).toEqual([]);
    // Each justified case is a child-process suite (no step to drive) or a wait that is itself under test;
    // keep the list short: a new entry needs its comment to say why no positive event exists.
    expect(allowed.map((a) => a.at.replace(/:\d+$/, '')).sort()).toEqual(ALLOW_LIST);
  });
});

/** Files with justified cases (see their `negative-after-wait:` comments). */
const ALLOW_LIST: string[] = [];
