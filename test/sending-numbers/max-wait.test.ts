import { afterAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { createLead, describeEachDialect } from '../support/harness.js';
import {
  ALWAYS_OPEN,
  addNumber,
  busiestWindow,
  messageOf,
  numberIn,
  send,
  settled,
  settledAfterStep,
  twilioEnv,
  until,
} from './helpers.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

describe('PARLEY_PACING_MAX_WAIT_HOURS', () => {
  it('defaults to 10 h, takes decimals, and stops the boot on anything else', () => {
    expect(loadConfig({}).pacingMaxWaitMs).toBe(36_000_000);
    expect(loadConfig({ PARLEY_PACING_MAX_WAIT_HOURS: '0.5' }).pacingMaxWaitMs).toBe(1_800_000);
    expect(loadConfig({ PARLEY_PACING_MAX_WAIT_HOURS: '720' }).pacingMaxWaitMs).toBe(720 * 3_600_000);
    for (const bad of ['0', '721', '-1', 'ten', '1h', '.5']) {
      expect(() => loadConfig({ PARLEY_PACING_MAX_WAIT_HOURS: bad }), bad).toThrow(ConfigError);
    }
    expect(() => loadConfig({ PARLEY_PACING_MAX_WAIT_HOURS: 'ten' })).toThrow(
      /PARLEY_PACING_MAX_WAIT_HOURS must be a number of hours above 0 and at most 720/,
    );
  });
});

const fake = await startFakeTwilio('ACpool', 'pool-secret');
afterAll(() => fake.close());

describeEachDialect(
  'the maximum wait of a paced send (0.001 h: 3.6 s)',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('a send whose slot on a slow number is further than the maximum wait fails at once, with the configured wait in its reason', async () => {
      const ts = ctx();
      const client = await ts.clientWithScopes([...SCOPES], `max-wait-${process.pid}`);
      expect((await client.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
      // 0.1 segments/s: the second send's slot is 10 s away.
      const pool = await addNumber(client, { number: numberIn('415'), kind: 'longCode', ratePerSecond: 0.1 });
      const [a, b] = await Promise.all([0, 1].map(() => createLead(client, { phone: numberIn('415') })));
      expect((await settledAfterStep(ts, client, a!, await send(client, a!, 'goes now'))).status).toBe('sent');
      const late = await settledAfterStep(ts, client, b!, await send(client, b!, 'too far out'));
      expect(late).toMatchObject({ status: 'failed', statusCode: 'PACING_TIMEOUT', segments: 1 });
      expect(late.statusReason).toMatch(
        /next free slot is \d+ s away \(rate 0\.1 segments\/s\), beyond the maximum wait of 4 s/,
      );
      expect(fake.accepted('Messages', (p) => p.From === pool.number).map((r) => r.params.Body)).toEqual(['goes now']);
    });
  },
  { ...twilioEnv(fake), PARLEY_PACING_MAX_WAIT_HOURS: '0.001' },
);

describeEachDialect(
  'the maximum wait counts from the first ask, across fresh slots (0.005 h: 18 s)',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('sends that fall behind and take fresh slots fail PACING_TIMEOUT once those are beyond the maximum wait of their first ask', async () => {
      const ts = ctx();
      const client = await ts.clientWithScopes([...SCOPES], `max-wait-since-${process.pid}`);
      expect((await client.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
      // 0.5 segments/s: slots 0, 2, 4, 6 and 8 s out, all within the 18 s.
      const pool = await addNumber(client, { number: numberIn('415'), kind: 'longCode', ratePerSecond: 0.5 });
      const leads = await Promise.all([0, 1, 2, 3, 4].map(() => createLead(client, { phone: numberIn('415') })));
      const ids: string[] = [];
      for (const [i, lead] of leads.entries()) ids.push(await send(client, lead, `since ${i}`));
      await until(
        () => Promise.all(leads.map((lead, i) => messageOf(client, lead, ids[i]!))),
        (ms) => ms.every((m) => m?.status === 'sent' || m?.statusCode === 'PACING'),
      );
      // The worker wakes 17 s late: one late send leaves, the next ones would wait behind it a fresh slot
      // a second away, which is more than 18 s after they first asked: each fails instead of waiting on.
      ts.clock.advance(17_000);
      const views = await Promise.all(leads.map((lead, i) => settled(client, lead, ids[i]!, 15_000)));
      const failed = views.filter((m) => m.status === 'failed');
      expect(failed.length).toBeGreaterThanOrEqual(2);
      for (const m of failed) {
        expect(m.statusCode).toBe('PACING_TIMEOUT');
        expect(m.statusReason).toMatch(
          /^not sent: the sending number's next free slot is \d+ s away, \d+ s after the message first asked for one \(rate 0\.5 segments\/s\), beyond the maximum wait of 18 s \(from \+1415/,
        );
      }
      const arrivals = fake.accepted('Messages', (p) => p.From === pool.number);
      expect(arrivals).toHaveLength(5 - failed.length);
      expect(
        busiestWindow(
          arrivals.map((r) => r.at),
          2000,
        ),
      ).toBeLessThanOrEqual(2);
    });
  },
  { ...twilioEnv(fake), PARLEY_PACING_MAX_WAIT_HOURS: '0.005' },
);
