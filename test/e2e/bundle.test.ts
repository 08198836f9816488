import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, consoleSnapshot } from './support.js';

const BUDGET = 150 * 1024;

/** The JavaScript a first visit loads: every module script and modulepreload index.html names. */
function firstLoadScripts(html: string): string[] {
  const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!);
  const preloads = [...html.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
  return [...new Set([...scripts, ...preloads])];
}

describe('console bundle (dist/console)', () => {
  let html = '';
  // A whole copy of dist/console: other suites may rebuild it meanwhile.
  let dir = '';
  const fileOf = (src: string) => join(dir, src.replace(/^\/console\//, ''));
  beforeAll(async () => {
    dir = await consoleSnapshot();
    html = readFileSync(join(dir, 'index.html'), 'utf8');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`loads at most ${BUDGET / 1024} KB of gzipped JavaScript on first load`, () => {
    const scripts = firstLoadScripts(html);
    expect(scripts.length).toBeGreaterThan(0);
    const sizes = scripts.map((src) => gzipSync(readFileSync(fileOf(src))).length);
    const total = sizes.reduce((a, b) => a + b, 0);
    console.log(`console first-load JS: ${scripts.length} file(s), ${(total / 1024).toFixed(1)} KB gzipped`);
    expect(total).toBeLessThanOrEqual(BUDGET);
  });

  it('has nothing inline that the CSP would block: no inline script or style, no style attribute, no outside origin', () => {
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style\b/);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    for (const src of firstLoadScripts(html)) expect(src.startsWith('/console/')).toBe(true);
  });

  it('has no inline style and no raw HTML in its source: lead text is only ever rendered as text', () => {
    const src = join(ROOT, 'console', 'src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tsx?$/.test(f));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const code = readFileSync(join(src, f), 'utf8');
      expect(code, f).not.toMatch(/dangerouslySetInnerHTML|innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
      expect(code, f).not.toMatch(/\sstyle=\{|\.style\.|setAttribute\(\s*'style'/);
    }
  });
});
