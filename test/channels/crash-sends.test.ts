import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { startFakeTwilio, type FakeTwilio, type SlowAccept } from '../support/fake-twilio.js';
import { clientFor, createLead, dialects, freshDatabase, uniquePhone, type Client } from '../support/harness.js';
import { waitForStatus } from '../support/messages.js';
import { buildCli, freePort, killStarted, spawnParley, waitReady, type ParleyProcess } from '../support/processes.js';
import { eventually } from '../support/webhooks.js';
import { zoneInDaytimeNow } from '../support/clock-hours.js';

const SID = 'ACcrash';
const TOKEN = 'crash-secret';

beforeAll(async () => {
  await buildCli();
}, 240_000);

afterAll(async () => {
  await killStarted();
});

interface Sent {
  leadId: string;
  id: string;
  text: string;
}

/**
 * At most once to the provider, under a hard crash: the real server (API and
 * worker in one process) is SIGKILLed while Twilio is still answering its
 * sends, and restarted on the same database. Each text reaches the carrier
 * exactly once: a send Twilio took before the kill is found in its message
 * list and adopted, one that never reached it is sent once; when the list
 * cannot be read nothing is sent again and the message waits, in doubt, for
 * an operator, who resolves it through the API.
 */
for (const dialect of dialects()) {
  describe(`no message twice after a crash [${dialect}]`, () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let store: Store;
    let fake: FakeTwilio;
    let key: string;
    let readOnlyKey: string;
    const from = uniquePhone();

    const serve = async (
      env: Record<string, string>,
    ): Promise<{ proc: ParleyProcess; client: Client; url: string }> => {
      const port = await freePort();
      const proc = spawnParley(['serve'], {
        DATABASE_URL: database.url,
        PORT: String(port),
        HOST: '127.0.0.1',
        PARLEY_RATE_LIMIT: '0',
        PARLEY_WORKER_POLL_MS: '20',
        TWILIO_ACCOUNT_SID: SID,
        TWILIO_AUTH_TOKEN: TOKEN,
        TWILIO_API_BASE_URL: fake.url,
        PARLEY_PUBLIC_URL: 'https://parley.example.com',
        // The job's lease is its longest call's timeout doubled at least: keep them all short, so the lease is PARLEY_LEASE_MS.
        PARLEY_AI_TIMEOUT_MS: '500',
        PARLEY_WEBHOOK_TIMEOUT_MS: '500',
        PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
        ...env,
      });
      const url = `http://127.0.0.1:${port}`;
      // A busy machine starts a process slowly.
      await waitReady(proc, url, 60_000);
      return { proc, client: clientFor(url, key), url };
    };

    /**
     * Starts a server whose Twilio calls may take 3 s (a lease of 6 s), has it
     * send one SMS per text while Twilio answers slowly, and SIGKILLs it while
     * every one of them is waiting for Twilio's answer.
     */
    const crashWhileSending = async (texts: string[], accept: (text: string) => SlowAccept): Promise<Sent[]> => {
      fake.slowly(20_000, (p) => accept(p.Body!));
      const { proc, client } = await serve({ PARLEY_LEASE_MS: '6000' });
      const sent: Sent[] = [];
      for (const text of texts) {
        // Child process on real time (no TestClock): hours lifted AND the lead in a zone where it is day now (legal 08:00-21:00).
        const leadId = await createLead(client, { phone: uniquePhone(), timeZone: zoneInDaytimeNow().zone });
        const res = await client.post(`/leads/${leadId}/sendMessage`, { message: text, channel: 'sms' });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        sent.push({ leadId, id: res.body.id, text });
      }
      await eventually(`${texts.length} sends waiting for Twilio`, () => fake.inFlight() === texts.length, 10_000);
      process.kill(proc.pid, 'SIGKILL');
      expect(await proc.exited).toBe('SIGKILL');
      fake.slowly(0);
      return sent;
    };

    const acceptedWith = (text: string) => fake.accepted('Messages', (p) => p.Body === text);

    beforeAll(async () => {
      database = await freshDatabase(dialect);
      fake = await startFakeTwilio(SID, TOKEN);
      store = openStore(database.url, 2);
      await migrateToLatest(store);
      key = (await issueKey(store.db, 'acme')).key;
      readOnlyKey = (await issueKey(store.db, 'acme', ['leads:read'])).key;
      const { proc, client } = await serve({});
      // Open all day, so the gate never holds a send for contact hours.
      const res = await client.patch('/settings', {
        sendingNumber: from,
        contactHours: { start: '00:00', end: '00:00' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await proc.stop('SIGTERM');
    }, 60_000);

    afterAll(async () => {
      await killStarted();
      await fake?.close();
      await store?.close();
      await database?.drop();
    });

    it('each of three SMS in flight at the kill reaches Twilio exactly once after the restart', async () => {
      const texts = [
        `${dialect} taken before the kill`,
        `${dialect} never reached one`,
        `${dialect} never reached two`,
      ];
      const sent = await crashWhileSending(texts, (text) => (text === texts[0] ? 'on_arrival' : 'after_delay'));
      // At the kill Twilio holds only the first: the others were still waiting to be taken.
      expect(texts.map((t) => acceptedWith(t).length)).toEqual([1, 0, 0]);
      const taken = acceptedWith(texts[0]!)[0]!.sid;

      const { proc, client } = await serve({ PARLEY_LEASE_MS: '1000' });
      for (const s of sent) await waitForStatus(client, s.leadId, s.id, (st) => st === 'sent', 30_000);
      expect(texts.map((t) => acceptedWith(t).length)).toEqual([1, 1, 1]);
      // The one Twilio had taken was found in its list and adopted, with Twilio's sid: not sent again.
      const row = await store.db
        .selectFrom('messages')
        .select(['provider_message_id', 'status_reason', 'attempt_at'])
        .where('id', '=', sent[0]!.id)
        .executeTakeFirstOrThrow();
      expect(row.provider_message_id).toBe(taken);
      expect(row.status_reason).toMatch(/found at twilio-sms/);
      expect(row.attempt_at).toBeNull();
      // Each was looked up by its recipient and sender, from the day of its attempt, before anything was sent again.
      for (const s of sent) {
        const lead = (await client.get(`/leads/${s.leadId}`)).body;
        expect(
          fake.lists.some(
            (l) =>
              l.params.To === lead.phone &&
              l.params.From === from &&
              /^\d{4}-\d{2}-\d{2}$/.test(l.params['DateSent>'] ?? ''),
          ),
        ).toBe(true);
      }
      // message.sent once per message, the adopted one included.
      const events = await store.db.selectFrom('events').select('payload').where('type', '=', 'message.sent').execute();
      const sentIds = events.map((e) => (JSON.parse(e.payload) as { messageId: string }).messageId);
      for (const s of sent) expect(sentIds.filter((id) => id === s.id)).toHaveLength(1);
      await proc.stop('SIGTERM');
    }, 90_000);

    it('when Twilio cannot list its messages nothing is sent again: the message is left in doubt, and an operator resolves it', async () => {
      const texts = [`${dialect} taken, list down`, `${dialect} never reached, list down`];
      const sent = await crashWhileSending(texts, (text) => (text === texts[0] ? 'on_arrival' : 'after_delay'));
      const listsBefore = fake.lists.length;
      fake.failNext(() => true, 500, 1_000, 'GET');

      const { proc, client, url } = await serve({ PARLEY_LEASE_MS: '1000' });
      const viewOf = async (s: Sent) =>
        ((await client.get(`/leads/${s.leadId}/messages`)).body.messages as MessageView[]).find((m) => m.id === s.id)!;
      for (const s of sent) {
        const view = await eventually(
          `${s.text} left for an operator`,
          async () => {
            const v = await viewOf(s);
            return v.statusCode === 'NEEDS_OPERATOR' && v;
          },
          30_000,
        );
        expect(view.status).toBe('in_doubt');
        expect(view.statusReason).toMatch(/could not be asked/);
      }
      // Asked on the retry schedule (three attempts), and never sent blind.
      expect(fake.lists.length - listsBefore).toBeGreaterThanOrEqual(2 * 3);
      expect(texts.map((t) => acceptedWith(t).length)).toEqual([1, 0]);
      // The lead's timeline says so too.
      const timeline = (await client.get(`/leads/${sent[0]!.leadId}/events?since=1970-01-01T00:00:00Z`)).body;
      expect(JSON.stringify(timeline)).toMatch(/NEEDS_OPERATOR/);

      const [taken, missed] = sent as [Sent, Sent];
      const resolve = (c: Client, s: Sent, outcome: string) =>
        c.post(`/leads/${s.leadId}/messages/${s.id}/resolve`, { outcome });
      // Resolving needs messages:write; a key without it changes nothing.
      expect((await resolve(clientFor(url, readOnlyKey), taken, 'sent')).status).toBe(403);
      expect((await viewOf(taken)).statusCode).toBe('NEEDS_OPERATOR');
      expect((await resolve(client, taken, 'maybe')).status).toBe(400);

      // The operator saw it at Twilio: recorded sent, nothing sent.
      const resolved = await resolve(client, taken, 'sent');
      expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
      expect(resolved.body).toMatchObject({ id: taken.id, status: 'sent', statusReason: 'marked sent by an operator' });
      // Twice: nothing left to resolve.
      const again = await resolve(client, taken, 'resend');
      expect(again.status).toBe(409);
      expect(again.body.message).toMatch(/not in doubt/);

      // The other never reached Twilio: sent once more, once.
      expect((await resolve(client, missed, 'resend')).status).toBe(200);
      await waitForStatus(client, missed.leadId, missed.id, (st) => st === 'sent', 30_000);
      expect(texts.map((t) => acceptedWith(t).length)).toEqual([1, 1]);
      expect((await resolve(client, missed, 'sent')).status).toBe(409);
      // A message of another lead is not found under this one.
      expect(
        (await client.post(`/leads/${taken.leadId}/messages/${missed.id}/resolve`, { outcome: 'sent' })).status,
      ).toBe(404);
      await proc.stop('SIGTERM');
    }, 90_000);
  });
}

interface MessageView {
  id: string;
  status: string;
  statusCode: string | null;
  statusReason: string | null;
}
