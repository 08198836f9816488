import { AxeBuilder } from '@axe-core/playwright';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { describe } from 'vitest';
import { createUserInOrganization } from '../../src/users/users.service.js';
import { startTestServer, type Dialect, type TestServer } from '../support/harness.js';
import { FAST_WEBHOOKS } from '../support/webhooks.js';
import { sleep } from '../support/assert.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONSOLE_DIST = join(ROOT, 'dist', 'console');
export const SHOTS = join(ROOT, 'test-results', 'console');
const CHROMIUM = '/usr/bin/chromium';

/**
 * The browser suites need Debian's chromium. Without it they are skipped,
 * loudly; under CI=true a missing chromium is a failure, not a skip.
 */
export function describeWithBrowser(title: string, suite: () => void): void {
  // Generous limits: the browser, the server and its worker share the machine with other suites.
  if (existsSync(CHROMIUM)) {
    describe(title, { timeout: 90_000 }, suite);
    return;
  }
  if (process.env.CI === 'true')
    throw new Error(`${CHROMIUM} is required in CI for the console's browser tests (apt-get install chromium)`);
  console.warn(
    `\n*** ${CHROMIUM} not found: the console browser tests "${title}" are SKIPPED (apt-get install chromium to run them). ***\n`,
  );
  describe.skip(title, suite);
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds dist/console (vite build, about a second) when it is missing or older
 * than console/. Suites run in parallel processes: a directory made atomically
 * is the lock, so exactly one of them builds and the others wait for it.
 */
export async function ensureConsoleBuilt(): Promise<void> {
  const index = join(CONSOLE_DIST, 'index.html');
  const fresh = () => existsSync(index) && statSync(index).mtimeMs >= newestMtime(join(ROOT, 'console'));
  const lock = join(ROOT, 'dist', '.console-build.lock');
  for (let waited = 0; !fresh(); waited += 100) {
    mkdirSync(join(ROOT, 'dist'), { recursive: true });
    try {
      mkdirSync(lock);
    } catch {
      // Someone else is building; a lock older than a minute is a crashed build's.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 60_000)
        rmSync(lock, { recursive: true, force: true });
      if (waited > 60_000) throw new Error('waited a minute for another process to build the console');
      await sleep(100);
      continue;
    }
    try {
      const { build } = await import('vite');
      await build({ configFile: join(ROOT, 'console', 'vite.config.ts'), logLevel: 'warn' });
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export type Role = 'admin' | 'agent' | 'viewer';
export interface ConsoleUser {
  email: string;
  password: string;
  role: Role;
}

export interface ConsoleServer {
  ts: TestServer;
  users: Record<Role, ConsoleUser>;
  close(): Promise<void>;
}

/**
 * A private copy of the built console for one server. Other suites run
 * `npm run build` (which empties and rewrites dist/console) while the browser
 * tests are running; a copy taken whole, with every file index.html names,
 * keeps those tests from ever seeing a half-written build.
 */
export async function consoleSnapshot(): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    await ensureConsoleBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'parley-console-'));
    try {
      cpSync(CONSOLE_DIST, dir, { recursive: true });
      const html = readFileSync(join(dir, 'index.html'), 'utf8');
      const files = [...html.matchAll(/(?:src|href)="\/console\/([^"]+)"/g)].map((m) => m[1]!);
      if (files.length > 0 && files.every((f) => existsSync(join(dir, f)))) return dir;
    } catch {
      /* caught mid-rebuild: try again */
    }
    rmSync(dir, { recursive: true, force: true });
    await sleep(200);
  }
  throw new Error('could not take a whole copy of dist/console');
}

/** The real server (SQLite unless told) with the built console, and one user of each role in organization acme (the harness's `ts.acme` key). */
export async function startConsoleServer(
  dialect: Dialect = 'sqlite',
  env: Record<string, string> = {},
): Promise<ConsoleServer> {
  const dir = await consoleSnapshot();
  const ts = await startTestServer(dialect, { ...FAST_WEBHOOKS, ...env, PARLEY_CONSOLE_DIR: dir });
  const users = {} as Record<Role, ConsoleUser>;
  for (const role of ['admin', 'agent', 'viewer'] as const) {
    const email = `${role}-${process.pid}@example.com`;
    const password = `pw-${role}-${Math.random().toString(36).slice(2)}-long`;
    await createUserInOrganization(ts.server.store.db, 'acme', { email, role, password });
    users[role] = { email, password, role };
  }
  const close = async () => {
    await ts.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { ts, users, close };
}

/** A fresh browser context already signed in as `user` (through the real login endpoint, so the session cookie is the server's). */
export async function signedIn(
  browser: Browser,
  server: ConsoleServer,
  user: ConsoleUser,
  width = 1280,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: server.ts.url, viewport: { width, height: 900 } });
  const res = await context.request.post('/console/api/login', {
    data: { email: user.email, password: user.password },
  });
  if (res.status() !== 200) throw new Error(`login failed: ${res.status()} ${await res.text()}`);
  const page = await context.newPage();
  return { context, page };
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Serious and critical axe violations on the page (or inside `include`), one line each: a passing page answers []. */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  const builder = new AxeBuilder({ page });
  const result = await (include ? builder.include(include) : builder).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}
