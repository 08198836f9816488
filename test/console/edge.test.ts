import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/console-api/headers.js';
import { expectError } from '../support/assert.js';
import { describeEachDialect } from '../support/harness.js';
import { makeUser, request, uniqueEmail } from './support.js';

const site = mkdtempSync(join(tmpdir(), 'parley-console-'));
mkdirSync(join(site, 'assets'));
writeFileSync(
  join(site, 'index.html'),
  '<!doctype html><title>Parley console</title><script type="module" src="/console/assets/app.js"></script>',
);
writeFileSync(join(site, 'assets', 'app.js'), 'console.log("app")');
afterAll(() => rmSync(site, { recursive: true, force: true }));

const expectConsoleHeaders = (headers: Headers) => {
  expect(headers.get('content-security-policy')).toBe(CONSOLE_CSP);
  expect(headers.get('content-security-policy')).not.toContain('unsafe-inline');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('same-origin');
};

describeEachDialect(
  'console login throttling, https behind a trusted proxy, static app',
  (ctx) => {
    it('a fourth failed sign-in of one account is a 429 with Retry-After, even with the right password; other accounts still sign in', async () => {
      const ts = ctx();
      const user = await makeUser(ts, 'viewer');
      for (let i = 0; i < 3; i++) {
        expect(
          (
            await request(
              ts,
              'POST',
              '/console/api/login',
              { email: user.email, password: 'wrong-password-1' },
              { 'x-forwarded-for': '10.0.0.1' },
            )
          ).status,
        ).toBe(401);
      }
      const blocked = await request(
        ts,
        'POST',
        '/console/api/login',
        { email: user.email, password: user.password },
        { 'x-forwarded-for': '10.0.0.2' },
      );
      expect(blocked.status).toBe(429);
      expect(blocked.body.message).toMatch(/^Too many failed sign-ins: try again in \d+ seconds\.$/);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(blocked.headers.get('retry-after'))).toBeLessThanOrEqual(900);
      const other = await makeUser(ts, 'viewer');
      expect(
        (
          await request(
            ts,
            'POST',
            '/console/api/login',
            { email: other.email, password: other.password },
            { 'x-forwarded-for': '10.0.0.3' },
          )
        ).status,
      ).toBe(200);
      // The window passes: the account may try again.
      ts.clock.advance(15 * 60_000 + 1000);
      expect(
        (
          await request(
            ts,
            'POST',
            '/console/api/login',
            { email: user.email, password: user.password },
            { 'x-forwarded-for': '10.0.0.2' },
          )
        ).status,
      ).toBe(200);
      ts.clock.reset();
    });

    it('one address failing across many accounts is throttled too (per address), while other addresses are not', async () => {
      const ts = ctx();
      for (let i = 0; i < 6; i++) {
        expect(
          (
            await request(
              ts,
              'POST',
              '/console/api/login',
              { email: uniqueEmail('spray'), password: 'nope-nope-nope' },
              { 'x-forwarded-for': '10.9.9.9' },
            )
          ).status,
        ).toBe(401);
      }
      const user = await makeUser(ts, 'agent');
      expect(
        (
          await request(
            ts,
            'POST',
            '/console/api/login',
            { email: user.email, password: user.password },
            { 'x-forwarded-for': '10.9.9.9' },
          )
        ).status,
      ).toBe(429);
      expect(
        (
          await request(
            ts,
            'POST',
            '/console/api/login',
            { email: user.email, password: user.password },
            { 'x-forwarded-for': '10.9.9.8' },
          )
        ).status,
      ).toBe(200);
    });

    it('behind a trusted proxy, X-Forwarded-Proto: https makes the cookie Secure; plain http does not', async () => {
      const ts = ctx();
      const user = await makeUser(ts, 'viewer');
      const secure = await request(
        ts,
        'POST',
        '/console/api/login',
        { email: user.email, password: user.password },
        { 'x-forwarded-proto': 'https' },
      );
      expect(secure.headers.get('set-cookie')).toMatch(
        /^parley_session=[\w-]+; HttpOnly; SameSite=Strict; Path=\/; Secure$/,
      );
      const plain = await request(ts, 'POST', '/console/api/login', { email: user.email, password: user.password });
      expect(plain.headers.get('set-cookie')).not.toMatch(/Secure/);
    });

    it('serves the built app with the CSP on /console, its files, client routes (index.html) and the API', async () => {
      const ts = ctx();
      for (const path of ['/console', '/console/', '/console/leads/123', '/console/settings?tab=keys']) {
        const res = await request(ts, 'GET', path);
        expect(res.status, path).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.body).toContain('<title>Parley console</title>');
        expect(res.headers.get('cache-control')).toBe('no-cache');
        expectConsoleHeaders(res.headers);
      }
      const js = await request(ts, 'GET', '/console/assets/app.js');
      expect(js.status).toBe(200);
      expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(js.headers.get('cache-control')).toContain('immutable');
      expectConsoleHeaders(js.headers);
      expect((await request(ts, 'GET', '/console/assets/missing.js')).status).toBe(404);
      for (const path of ['/console/api/nothing', '/console/api/session']) {
        const res = await request(ts, 'GET', path);
        expect(res.status, path).toBe(path.endsWith('session') ? 401 : 404);
        expectConsoleHeaders(res.headers);
      }
      // Nothing outside the built directory is reachable.
      for (const path of [
        '/console/%2e%2e/%2e%2e/package.json',
        '/console/..%2f..%2fpackage.json',
        '/console/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      ]) {
        const res = await request(ts, 'GET', path);
        expect(String(res.body), path).not.toContain('"dependencies"');
        expect(String(res.body), path).not.toContain('root:');
      }
      // Not on the API.
      expect((await request(ts, 'GET', '/healthz')).headers.get('content-security-policy')).toBeNull();
    });

    it('is an exception only for /console itself: neighbouring paths outside /v1 stay 404 {"message":"Not Found"} (docs/contract.md)', async () => {
      const ts = ctx();
      for (const path of ['/consoles', '/console-admin', '/consoleapi/session', '/api/session', '/login']) {
        expectError(await request(ts, 'GET', path), 404, 'Not Found');
      }
      expectError(
        await request(ts, 'POST', '/console-api/login', { email: 'a@example.com', password: 'x' }),
        404,
        'Not Found',
      );
    });
  },
  {
    PARLEY_LOGIN_FAILURES_PER_ACCOUNT: '3',
    PARLEY_LOGIN_FAILURES_PER_ADDRESS: '6',
    PARLEY_TRUST_PROXY: 'true',
    PARLEY_CONSOLE_DIR: site,
  },
);

describeEachDialect(
  'console not built',
  (ctx) => {
    it('answers /console with a 503 naming the build command, with the console headers', async () => {
      const res = await request(ctx(), 'GET', '/console/inbox');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ message: 'The console is not built: run npm run build' });
      expectConsoleHeaders(res.headers);
    });
  },
  { PARLEY_CONSOLE_DIR: join(site, 'absent') },
);
