import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStore } from '../../src/platform/db/connect.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { clientFor, type Client, type freshDatabase } from '../support/harness.js';
import {
  freePort,
  killStarted,
  preparedPostgres,
  spawnParley,
  waitForOutput,
  waitReady,
  type ParleyProcess,
} from '../support/processes.js';
import { ALWAYS_OPEN, addNumber, busiestWindow, numberIn, send, settled, twilioEnv } from './helpers.js';
import { zoneInDaytimeNow } from '../support/clock-hours.js';

const pgAvailable = inject('pgAvailable');
if (!pgAvailable)
  console.warn(
    '\n*** PostgreSQL not reachable: the multi-process pacing suite is SKIPPED (it needs PostgreSQL). ***\n',
  );

const fake = await startFakeTwilio('ACpool', 'pool-secret');
afterAll(() => fake.close());

/**
 * The deployment pacing must hold in: one API process and two worker
 * processes on one PostgreSQL, all sending through one pool number. The
 * workers share nothing but the database; the number's row is the bucket.
 */
describe.skipIf(!pgAvailable)('pacing across two worker processes on one PostgreSQL [postgres]', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  let client: Client;
  let api: ParleyProcess;
  const workers: ParleyProcess[] = [];

  beforeAll(async () => {
    let key: string;
    ({ database, key } = await preparedPostgres());
    const env = { ...twilioEnv(fake), DATABASE_URL: database.url, PARLEY_RATE_LIMIT: '0', PARLEY_DB_POOL_SIZE: '8' };
    const port = await freePort();
    api = spawnParley(['serve', '--no-worker'], { ...env, PORT: String(port), HOST: '127.0.0.1' });
    const url = `http://127.0.0.1:${port}`;
    client = clientFor(url, key);
    for (let i = 0; i < 2; i += 1) workers.push(spawnParley(['worker'], { ...env, LOG_LEVEL: 'debug' }));
    await waitReady(api, url);
    await Promise.all(workers.map((w) => waitForOutput(w, /parley worker running/)));
  }, 240_000);

  afterAll(async () => {
    await killStarted();
    await database?.drop();
  });

  it('the two workers together keep one number within its rate (8 segments/s, 32 sends)', async () => {
    expect((await client.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
    const pool = await addNumber(client, { number: numberIn('415'), kind: 'tollFree', ratePerSecond: 8 });
    const leads: string[] = [];
    for (let i = 0; i < 32; i += 1) {
      // Child process on real time (no TestClock): hours lifted AND the lead in a zone where it is day now (legal 08:00-21:00).
      const res = await client.post('/leads/create', {
        firstName: `P${i}`,
        phone: numberIn('415'),
        timeZone: zoneInDaytimeNow().zone,
      });
      leads.push(res.body.id);
    }
    // Four requests at a time: enough to build a backlog far beyond 8/s, and gentle with the API's small pool on a busy machine.
    const sent: { lead: string; id: string }[] = [];
    for (let i = 0; i < leads.length; i += 4) {
      sent.push(
        ...(await Promise.all(
          leads.slice(i, i + 4).map(async (lead, k) => ({ lead, id: await send(client, lead, `multi ${i + k}`) })),
        )),
      );
    }
    const views = [];
    for (const { lead, id } of sent) views.push(await settled(client, lead, id, 30_000));
    expect(views.every((m) => m.status === 'sent')).toBe(true);

    const requests = fake.accepted('Messages', (p) => p.From === pool.number);
    expect(requests).toHaveLength(32);
    // The slot each send was given, as the send path recorded it (read straight from the database).
    const db = openStore(database!.url, 1);
    const rows = await db.db
      .selectFrom('messages')
      .select(['text', 'paced_until'])
      .where('sending_number_id', '=', pool.id)
      .execute();
    await db.close();
    const slotOf = new Map(rows.map((r) => [r.text, Date.parse(r.paced_until!)]));
    const slots = [...slotOf.values()].sort((a, b) => a - b);
    // Slots from both processes interleave on one bucket: 125 ms apart, never 9 in a second.
    for (let i = 1; i < slots.length; i += 1) expect(slots[i]! - slots[i - 1]!).toBeGreaterThanOrEqual(124);
    expect(busiestWindow(slots, 1000)).toBeLessThanOrEqual(8);
    const lateness = requests.map((r) => r.at - slotOf.get(r.params.Body!)!);
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(-1);
    const spread = Math.max(...lateness) - Math.min(...lateness);
    expect(
      busiestWindow(
        requests.map((r) => r.at),
        1000,
      ),
    ).toBeLessThanOrEqual(8 + 1 + Math.ceil((spread * 8) / 1000));
    // Both processes took part: each deferred sends to their slots, or held them for a departure within a second.
    for (const w of workers)
      expect(w.output()).toMatch(/message\.send waits until|message\.send held for its departure/);
  }, 90_000);
});
