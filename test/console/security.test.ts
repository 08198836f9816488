import { expect, it } from 'vitest';
import { createLead, describeEachDialect, uniquePhone, type TestServer } from '../support/harness.js';
import { consoleClient, makeUser, request, signIn } from './support.js';

const leadCount = async (ts: TestServer) =>
  Number(
    (
      await ts.server.store.db
        .selectFrom('leads')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describeEachDialect('console sessions on /v1: roles, CSRF, organizations', (ctx) => {
  it('a session reads /v1 as its organization; without a cookie or with an unknown one /v1 stays a 403', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const viewer = await consoleClient(ts, 'viewer');
    const res = await viewer.call('GET', `/v1/leads/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(id);
    expect((await request(ts, 'GET', `/v1/leads/${id}`)).status).toBe(403);
    expect(
      (
        await request(ts, 'GET', `/v1/leads/${id}`, undefined, {
          cookie: 'parley_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        })
      ).body,
    ).toEqual({ message: 'Forbidden', code: 'forbidden' });
  });

  it('a state change without the CSRF token, or with a wrong one, is a 403 and changes nothing', async () => {
    const ts = ctx();
    const agent = await consoleClient(ts, 'agent');
    const before = await leadCount(ts);
    for (const csrf of [null, 'wrong', `${agent.csrf}x`, '']) {
      const res = await agent.call('POST', '/v1/leads/create', { firstName: 'Csrf', phone: uniquePhone() }, { csrf });
      expect(res.status, String(csrf)).toBe(403);
      expect(res.body.message).toMatch(/x-csrf-token/);
    }
    // Another session's token is not this session's.
    const other = await consoleClient(ts, 'agent');
    expect(
      (await agent.call('POST', '/v1/leads/create', { firstName: 'Csrf', phone: uniquePhone() }, { csrf: other.csrf }))
        .status,
    ).toBe(403);
    expect(await leadCount(ts)).toBe(before);
    const ok = await agent.call('POST', '/v1/leads/create', { firstName: 'Csrf', phone: uniquePhone() });
    expect(ok.status).toBe(200);
    expect(await leadCount(ts)).toBe(before + 1);
  });

  it('roles: a viewer only reads, an agent works leads but not settings, an admin has the default scopes but not inbound:write', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const viewer = await consoleClient(ts, 'viewer');
    const agent = await consoleClient(ts, 'agent');
    const admin = await consoleClient(ts, 'admin');
    const before = await leadCount(ts);
    expect((await viewer.call('POST', '/v1/leads/create', { firstName: 'V', phone: uniquePhone() })).status).toBe(403);
    expect((await viewer.call('POST', `/v1/leads/${id}/turnOffAi`)).status).toBe(403);
    expect((await viewer.call('POST', `/v1/leads/${id}/sendMessage`, { message: 'x' })).status).toBe(403);
    expect(await leadCount(ts)).toBe(before);
    expect((await viewer.call('GET', '/v1/settings')).status).toBe(200);
    expect((await viewer.call('GET', '/v1/customerProfiles')).status).toBe(200);

    expect((await agent.call('POST', `/v1/leads/${id}/turnOffAi`)).status).toBe(200);
    expect((await agent.call('POST', '/v1/dnc/register', { phone: uniquePhone() })).status).toBeLessThan(300);
    expect((await agent.call('PATCH', '/v1/settings', { timeZone: 'Europe/Paris' })).status).toBe(403);
    expect((await agent.call('GET', '/v1/webhooks')).status).toBe(403);

    expect((await admin.call('PATCH', '/v1/settings', { timeZone: 'Europe/Paris' })).status).toBe(200);
    expect((await admin.call('GET', '/v1/webhooks')).status).toBe(200);
    expect((await admin.call('POST', '/v1/inbound', { channel: 'sms', from: uniquePhone(), text: 'hi' })).status).toBe(
      403,
    );
  });

  it("a session cannot reach another organization's lead (404), on /v1 and on the console API", async () => {
    const ts = ctx();
    const acmeLead = await createLead(ts.acme);
    const betaAgent = await consoleClient(ts, 'agent', 'beta');
    expect((await betaAgent.call('GET', `/v1/leads/${acmeLead}`)).status).toBe(404);
    expect((await betaAgent.call('POST', `/v1/leads/${acmeLead}/turnOffAi`)).status).toBe(404);
    expect((await betaAgent.call('PUT', `/console/api/reads/${acmeLead}`)).status).toBe(404);
    expect((await betaAgent.call('GET', `/console/api/reads?leadIds=${acmeLead}`)).body).toEqual({ reads: {} });
    const listed = await betaAgent.call('GET', '/v1/leads?limit=1000');
    expect(listed.body.leads.map((l: { id: string }) => l.id)).not.toContain(acmeLead);
  });

  it('an API key still wins over a cookie sent beside it, and works as before', async () => {
    const ts = ctx();
    const viewer = await consoleClient(ts, 'viewer');
    const res = await request(
      ts,
      'POST',
      '/v1/leads/create',
      { firstName: 'Key', phone: uniquePhone() },
      { cookie: viewer.cookie, 'x-api-key': ts.acme.key },
    );
    expect(res.status).toBe(200);
    expect(
      (await request(ts, 'GET', '/v1/leads', undefined, { cookie: viewer.cookie, 'x-api-key': 'pk_live_wrong' }))
        .status,
    ).toBe(403);
  });

  it("a deleted user's sessions are refused at once, on the console API and /v1", async () => {
    const ts = ctx();
    const admin = await consoleClient(ts, 'admin');
    const doomed = await consoleClient(ts, 'agent');
    expect((await doomed.call('GET', '/v1/leads')).status).toBe(200);
    expect((await admin.call('DELETE', `/console/api/users/${doomed.userId}`)).status).toBe(204);
    expect((await doomed.call('GET', '/console/api/session')).status).toBe(401);
    expect((await doomed.call('GET', '/v1/leads')).status).toBe(403);
    // And the password no longer signs in.
    const again = await request(ts, 'POST', '/console/api/login', { email: doomed.email, password: doomed.password });
    expect(again.status).toBe(401);
  });

  it('password hashes are scrypt with a salt: not the password, and different for the same password', async () => {
    const ts = ctx();
    const a = await makeUser(ts, 'viewer');
    const { createUserInOrganization } = await import('../../src/users/users.service.js');
    const b = await createUserInOrganization(ts.server.store.db, 'acme', {
      email: `same.${a.email}`,
      role: 'viewer',
      password: a.password,
    });
    const rows = await ts.server.store.db
      .selectFrom('users')
      .select(['id', 'password_hash'])
      .where('id', 'in', [a.userId, b.user.id])
      .execute();
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.password_hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      expect(r.password_hash).not.toContain(a.password);
    }
    expect(rows[0]!.password_hash).not.toBe(rows[1]!.password_hash);
    // The session table holds the token's digest, never the token.
    const session = await signIn(ts, a);
    const token = session.cookie.split('=')[1]!;
    const stored = await ts.server.store.db.selectFrom('console_sessions').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(token);
  });
});

/**
 * Sign-in throttling under a burst: each attempt takes its place in the
 * allowance before its password is checked (scrypt), so concurrent guesses
 * cannot all be checked while the first failures are still being counted.
 * A 401 is an attempt whose password was checked; a 429 one that was not.
 */
const burst = (ts: TestServer, attempts: { email: string; password: string }[]) =>
  Promise.all(attempts.map((a) => request(ts, 'POST', '/console/api/login', a)));

const statusCounts = (answers: { status: number }[]) => {
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
};

describeEachDialect('sign-in throttle under concurrent attempts (per account: 10, the default)', (ctx) => {
  it('40 concurrent wrong passwords for one account: 10 are checked, the other 30 are 429 without a check', async () => {
    const ts = ctx();
    const user = await makeUser(ts, 'admin');
    const answers = await burst(
      ts,
      Array.from({ length: 40 }, (_, i) => ({ email: user.email, password: `wrong-password-${i}` })),
    );
    expect(statusCounts(answers)).toEqual({ 401: 10, 429: 30 });
    for (const a of answers.filter((x) => x.status === 429))
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
    // The allowance is spent: the right password is refused too.
    expect(
      (await request(ts, 'POST', '/console/api/login', { email: user.email, password: user.password })).status,
    ).toBe(429);
  });

  it('200 concurrent attempts with the right password last do not sign in', async () => {
    const ts = ctx();
    const user = await makeUser(ts, 'admin');
    const attempts = Array.from({ length: 199 }, (_, i) => ({ email: user.email, password: `wrong-password-${i}` }));
    const answers = await burst(ts, [...attempts, { email: user.email, password: user.password }]);
    expect(answers.at(-1)!.status).toBe(429);
    expect(answers.filter((a) => a.status === 200)).toEqual([]);
    expect(answers.filter((a) => a.headers.get('set-cookie'))).toEqual([]);
    expect(statusCounts(answers)[401]).toBeLessThanOrEqual(10);
    expect(
      await ts.server.store.db.selectFrom('console_sessions').select('id').where('user_id', '=', user.userId).execute(),
    ).toEqual([]);
  });

  it("a success frees its place and clears the account's failures: concurrent right passwords then all sign in", async () => {
    const ts = ctx();
    const user = await makeUser(ts, 'viewer');
    const right = { email: user.email, password: user.password };
    for (let i = 0; i < 9; i++)
      expect(
        (await request(ts, 'POST', '/console/api/login', { email: user.email, password: 'wrong-password-x' })).status,
      ).toBe(401);
    expect((await request(ts, 'POST', '/console/api/login', right)).status).toBe(200);
    expect(
      statusCounts(
        await burst(
          ts,
          Array.from({ length: 8 }, () => right),
        ),
      ),
    ).toEqual({ 200: 8 });
    expect((await request(ts, 'POST', '/console/api/login', right)).status).toBe(200);
  });
});

describeEachDialect(
  'sign-in throttle under concurrent attempts (per address: 5)',
  (ctx) => {
    it('30 concurrent wrong sign-ins to 30 accounts from one address: 5 are checked, 25 are 429', async () => {
      const ts = ctx();
      const users = await Promise.all(Array.from({ length: 30 }, () => makeUser(ts, 'viewer')));
      const answers = await burst(
        ts,
        users.map((u) => ({ email: u.email, password: 'wrong-password-y' })),
      );
      expect(statusCounts(answers)).toEqual({ 401: 5, 429: 25 });
    });
  },
  { PARLEY_LOGIN_FAILURES_PER_ADDRESS: '5' },
);
