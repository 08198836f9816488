import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/harness.js';
import { consoleClient, cookieOf, makeUser, request, signIn } from './support.js';
import { messageOf } from '../support/assert.js';

describeEachDialect('console sessions', (ctx) => {
  it('signs in with email and password: the user, a CSRF token and an HttpOnly SameSite=Strict cookie without Secure over http', async () => {
    const ts = ctx();
    const user = await makeUser(ts, 'agent');
    const res = await request(ts, 'POST', '/console/api/login', {
      email: user.email.toUpperCase(),
      password: user.password,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      user: {
        id: user.userId,
        email: user.email,
        role: 'agent',
        organizationId: expect.any(String),
        organizationName: 'acme',
      },
      csrfToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^parley_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/$/);
    const me = await request(ts, 'GET', '/console/api/session', undefined, { cookie: cookieOf(res) });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(res.body);
  });

  it('a wrong password and an unknown email get the same 401 and message, and no cookie', async () => {
    const ts = ctx();
    const user = await makeUser(ts, 'viewer');
    for (const body of [
      { email: user.email, password: `${user.password}x` },
      { email: 'nobody@example.com', password: user.password },
    ]) {
      const res = await request(ts, 'POST', '/console/api/login', body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Invalid email or password.', code: 'invalid_login' });
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('a malformed login body is a clean 400', async () => {
    const ts = ctx();
    const res = await request(ts, 'POST', '/console/api/login', { email: 'a@b.c' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/password/);
  });

  it('without a cookie, or with an unknown one, every session route is a 401', async () => {
    const ts = ctx();
    for (const cookie of [
      undefined,
      'parley_session=nope',
      'parley_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      const headers: Record<string, string> = cookie ? { cookie } : {};
      for (const [method, path] of [
        ['GET', '/console/api/session'],
        ['POST', '/console/api/logout'],
        ['GET', '/console/api/events'],
        ['GET', '/console/api/reads?leadIds=a'],
        ['PUT', '/console/api/reads/a'],
        ['GET', '/console/api/users'],
        ['POST', '/console/api/users'],
        ['PATCH', '/console/api/users/x'],
        ['DELETE', '/console/api/users/x'],
        ['GET', '/console/api/keys'],
        ['POST', '/console/api/keys'],
        ['DELETE', '/console/api/keys/x'],
      ] as const) {
        const res = await request(ts, method, path, method === 'GET' || method === 'DELETE' ? undefined : {}, headers);
        expect(res.status, `${method} ${path} ${cookie}`).toBe(401);
        expect(messageOf(res)).toMatch(/sign in/);
      }
    }
  });

  it('logout needs the CSRF token, then revokes the session: the cookie no longer works anywhere', async () => {
    const ts = ctx();
    const c = await consoleClient(ts, 'admin');
    const refused = await c.call('POST', '/console/api/logout', undefined, { csrf: null });
    expect(refused.status).toBe(403);
    expect((await c.call('GET', '/console/api/session')).status).toBe(200);
    const out = await c.call('POST', '/console/api/logout');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^parley_session=; .*Max-Age=0/);
    expect((await c.call('GET', '/console/api/session')).status).toBe(401);
    expect((await c.call('GET', '/v1/leads')).status).toBe(403);
  });

  it('a session ends after the idle time, and after the absolute lifetime even when used', async () => {
    const ts = ctx();
    const idle = await consoleClient(ts, 'viewer');
    ts.clock.advance(12 * 3600_000 + 1000);
    expect((await idle.call('GET', '/console/api/session')).status).toBe(401);
    ts.clock.reset();

    const busy = await consoleClient(ts, 'viewer');
    let elapsedHours = 0;
    while (elapsedHours < 200) {
      ts.clock.advance(11 * 3600_000);
      elapsedHours += 11;
      if ((await busy.call('GET', '/console/api/session')).status === 401) break;
    }
    ts.clock.reset();
    // Used every 11 hours (never idle for 12), it still ends at 7 days = 168 hours.
    expect(elapsedHours).toBeGreaterThan(168);
    expect(elapsedHours).toBeLessThanOrEqual(168 + 11);
  });

  it('over https behind a trusted proxy... is not trusted by default: no Secure from X-Forwarded-Proto', async () => {
    const ts = ctx();
    const user = await makeUser(ts, 'viewer');
    const res = await request(
      ts,
      'POST',
      '/console/api/login',
      { email: user.email, password: user.password },
      { 'x-forwarded-proto': 'https' },
    );
    expect(res.headers.get('set-cookie')).not.toMatch(/Secure/);
    expect((await signIn(ts, user)).cookie).toMatch(/^parley_session=/);
  });
});
