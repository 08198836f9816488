import { expect, it } from 'vitest';
import { describeEachDialect, type TestServer } from '../support/harness.js';
import { makeUser, request, uniqueEmail } from './support.js';

/**
 * PARLEY_TRUST_PROXY over real HTTP. The test client stands in for the last
 * proxy (it connects from 127.0.0.1) and writes X-Forwarded-For as the proxies
 * in front would leave it: what the client forged, then what each proxy
 * appended. Sign-in throttling per address is what the client address decides.
 */
const PER_ADDRESS = 4;

const failOnce = (ts: TestServer, forwardedFor?: string) =>
  request(
    ts,
    'POST',
    '/console/api/login',
    { email: uniqueEmail('spray'), password: 'wrong-password-0' },
    forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  );

async function signInFrom(ts: TestServer, forwardedFor: string): Promise<number> {
  const user = await makeUser(ts, 'viewer');
  return (
    await request(
      ts,
      'POST',
      '/console/api/login',
      { email: user.email, password: user.password },
      { 'x-forwarded-for': forwardedFor },
    )
  ).status;
}

/** A fresh forged left-most address per attempt never earns a fresh allowance; `other` is another client. */
async function expectThrottledAs(ts: TestServer, forged: (i: number) => string, other: string): Promise<void> {
  const statuses: number[] = [];
  for (let i = 0; i < PER_ADDRESS + 3; i++) statuses.push((await failOnce(ts, forged(i))).status);
  expect(statuses).toEqual([...Array(PER_ADDRESS).fill(401), 429, 429, 429]);
  // Even the right password is refused from that client, while another client signs in.
  expect(await signInFrom(ts, forged(99))).toBe(429);
  expect(await signInFrom(ts, other)).toBe(200);
}

const env = (trust: string) => ({
  PARLEY_TRUST_PROXY: trust,
  PARLEY_LOGIN_FAILURES_PER_ADDRESS: String(PER_ADDRESS),
  PARLEY_LOGIN_FAILURES_PER_ACCOUNT: '100',
});

describeEachDialect(
  'PARLEY_TRUST_PROXY=true: one proxy, the right-most X-Forwarded-For address is the client',
  (ctx) => {
    it('a client cannot pick its address by writing X-Forwarded-For in front of what the proxy appends', async () => {
      const ts = ctx();
      await expectThrottledAs(ts, (i) => `10.9.0.${i}, 203.0.113.7`, '10.9.0.1, 203.0.113.8');
    });
    it('X-Forwarded-Proto from the proxy still makes the cookie Secure', async () => {
      const ts = ctx();
      const user = await makeUser(ts, 'viewer');
      const res = await request(
        ts,
        'POST',
        '/console/api/login',
        { email: user.email, password: user.password },
        { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.1' },
      );
      expect(res.headers.get('set-cookie')).toMatch(/; Secure$/);
    });
  },
  env('true'),
);

describeEachDialect(
  'PARLEY_TRUST_PROXY=2: two proxies, the client is what the outer one appended',
  (ctx) => {
    it("addresses left of the outer proxy's are the client's own writing and are ignored", async () => {
      const ts = ctx();
      await expectThrottledAs(ts, (i) => `10.9.0.${i}, 203.0.113.7, 10.1.1.1`, '10.9.0.1, 203.0.113.8, 10.1.1.1');
    });
  },
  env('2'),
);

describeEachDialect(
  'PARLEY_TRUST_PROXY as a list: the first address from the right outside it is the client',
  (ctx) => {
    it('skips every listed proxy and stops at the first address that is not one', async () => {
      const ts = ctx();
      await expectThrottledAs(ts, (i) => `10.9.0.${i}, 203.0.113.7, 10.1.1.1, 10.2.2.2`, '198.51.100.9, 10.1.1.1');
    });
  },
  env('127.0.0.1, 10.0.0.0/8'),
);

describeEachDialect(
  'PARLEY_TRUST_PROXY as a list without the peer: nothing forwarded is believed',
  (ctx) => {
    it('a peer outside the list is the client, whatever X-Forwarded-For and X-Forwarded-Proto say', async () => {
      const ts = ctx();
      const statuses: number[] = [];
      for (let i = 0; i < PER_ADDRESS + 1; i++) statuses.push((await failOnce(ts, `203.0.113.${i}`)).status);
      expect(statuses).toEqual([...Array(PER_ADDRESS).fill(401), 429]);
      expect((await failOnce(ts)).status).toBe(429);
      const user = await makeUser(ts, 'viewer');
      const res = await request(
        ts,
        'POST',
        '/console/api/login',
        { email: user.email, password: user.password },
        { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.50' },
      );
      expect(res.status).toBe(429);
    });
  },
  env('10.0.0.0/8'),
);
