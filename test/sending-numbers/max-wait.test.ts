import { afterAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { createLead, describeEachDialect } from '../support/harness.js';
import { ALWAYS_OPEN, addNumber, numberIn, send, settled, twilioEnv } from './helpers.js';

describe('PARLEY_PACING_MAX_WAIT_HOURS', () => {
  it('defaults to 10 h, takes decimals, and stops the boot on anything else', () => {
    expect(loadConfig({}).pacingMaxWaitMs).toBe(36_000_000);
    expect(loadConfig({ PARLEY_PACING_MAX_WAIT_HOURS: '0.5' }).pacingMaxWaitMs).toBe(1_800_000);
    expect(loadConfig({ PARLEY_PACING_MAX_WAIT_HOURS: '720' }).pacingMaxWaitMs).toBe(720 * 3_600_000);
    for (const bad of ['0', '721', '-1', 'ten', '1h', '.5']) {
      expect(() => loadConfig({ PARLEY_PACING_MAX_WAIT_HOURS: bad }), bad).toThrow(ConfigError);
    }
    expect(() => loadConfig({ PARLEY_PACING_MAX_WAIT_HOURS: 'ten' })).toThrow(/PARLEY_PACING_MAX_WAIT_HOURS must be a number of hours above 0 and at most 720/);
  });
});

const fake = await startFakeTwilio('ACpool', 'pool-secret');
afterAll(() => fake.close());

describeEachDialect('the maximum wait of a paced send (0.001 h: 3.6 s)', (ctx) => {
  it('a send whose slot on a slow number is further than the maximum wait fails at once, with the configured wait in its reason', async () => {
    const ts = ctx();
    const client = await ts.clientWithScopes([...SCOPES], `max-wait-${process.pid}`);
    expect((await client.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
    // 0.1 segments/s: the second send's slot is 10 s away.
    const pool = await addNumber(client, { number: numberIn('415'), kind: 'longCode', ratePerSecond: 0.1 });
    const [a, b] = await Promise.all([0, 1].map(() => createLead(client, { phone: numberIn('415') })));
    expect((await settled(client, a!, await send(client, a!, 'goes now'))).status).toBe('sent');
    const late = await settled(client, b!, await send(client, b!, 'too far out'));
    expect(late).toMatchObject({ status: 'failed', statusCode: 'PACING_TIMEOUT', segments: 1 });
    expect(late.statusReason).toMatch(/next free slot is \d+ s away \(rate 0\.1 segments\/s\), beyond the maximum wait of 4 s/);
    expect(fake.accepted('Messages', (p) => p.From === pool.number).map((r) => r.params.Body)).toEqual(['goes now']);
  });
}, { ...twilioEnv(fake), PARLEY_PACING_MAX_WAIT_HOURS: '0.001' });
