import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { clientFor, createLead, dialects, freshDatabase, type Client } from '../support/harness.js';
import { buildCli, freePort, killStarted, spawnParley, waitReady, type ParleyProcess } from '../support/processes.js';
import { Receiver, respond, respondAfter } from '../support/receiver.js';
import { FAST_RETRIES, eventually, registerEndpoint } from '../support/webhooks.js';

const LEADS = 30;

beforeAll(async () => {
  await buildCli();
}, 240_000);

afterAll(async () => {
  await killStarted();
});

/**
 * The outbox promise under a hard crash: the real server (API and worker in
 * one process) is SIGKILLed while unsubscribe requests are in flight and
 * deliveries are out. After a restart on the same database, every change that
 * was acknowledged is delivered, every delivery is of a change that committed,
 * and a change that did not commit left no event behind.
 */
for (const dialect of dialects()) {
  describe(`webhook delivery across a crash [${dialect}]`, () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let store: Store | undefined;
    const receiver = new Receiver();
    let server: ParleyProcess | undefined;

    const serve = async (databaseUrl: string): Promise<{ proc: ParleyProcess; url: string }> => {
      const port = await freePort();
      const proc = spawnParley(['serve'], {
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
        PARLEY_RATE_LIMIT: '0',
        PARLEY_WORKER_POLL_MS: '20',
        PARLEY_WEBHOOK_RETRY_SCHEDULE: FAST_RETRIES,
        // Deliveries the killed process had claimed come back after the lease (at least twice the timeout).
        PARLEY_LEASE_MS: '1000',
        PARLEY_WEBHOOK_TIMEOUT_MS: '500',
      });
      const url = `http://127.0.0.1:${port}`;
      await waitReady(proc, url);
      return { proc, url };
    };

    beforeAll(async () => {
      database = await freshDatabase(dialect);
      await receiver.start();
    });

    afterAll(async () => {
      await server?.stop('SIGKILL');
      await receiver.stop();
      await store?.close();
      await database?.drop();
    });

    it('loses no acknowledged change and delivers no uncommitted one', async () => {
      store = openStore(database.url, 2);
      await migrateToLatest(store);
      const issued = await issueKey(store.db, 'acme');

      const first = await serve(database.url);
      server = first.proc;
      let client: Client = clientFor(first.url, issued.key);
      await registerEndpoint(client, receiver);
      const leadIds: string[] = [];
      for (let i = 0; i < LEADS; i += 10)
        leadIds.push(...(await Promise.all(Array.from({ length: 10 }, () => createLead(client)))));

      // Slow answers, so some deliveries are out when the process dies.
      receiver.behaviour = respondAfter(50);
      const answered = new Map<string, number | 'error'>();
      let done = 0;
      let killed = false;
      const kill = () => {
        if (killed) return;
        killed = true;
        process.kill(first.proc.pid, 'SIGKILL');
      };
      const fallback = setTimeout(kill, 10_000);
      await Promise.all(
        leadIds.map(async (id) => {
          try {
            const res = await client.post(`/leads/${id}/unsubscribe`, {});
            answered.set(id, res.status);
          } catch {
            answered.set(id, 'error');
          }
          done += 1;
          if (done === LEADS / 2) kill(); // the other half are in flight, queued or not yet committed
        }),
      );
      clearTimeout(fallback);
      expect(await first.proc.exited).toBe('SIGKILL');
      const acknowledged = leadIds.filter((id) => answered.get(id) === 200);
      expect(acknowledged.length).toBeGreaterThan(0);
      expect([...answered.values()].every((s) => s === 200 || s === 'error')).toBe(true);

      receiver.behaviour = respond(200);
      const second = await serve(database.url);
      server = second.proc;
      client = clientFor(second.url, issued.key);

      const optOutEvents = async () =>
        (
          await store!.db
            .selectFrom('events')
            .select(['id', 'type', 'payload'])
            .where('organization_id', '=', issued.organizationId)
            .where('type', '!=', 'lead.created')
            .execute()
        ).map((e) => ({ id: e.id, type: e.type, data: JSON.parse(e.payload) as { leadId: string; channel: string } }));
      // Every event in the outbox (committed) reaches the receiver.
      // Real time: the server here is a child process, with no clock to move and no step to run; a bounded wait for a positive event.
      const events = await eventually(
        'every outbox event acknowledged',
        async () => {
          const all = await optOutEvents();
          const acked = receiver.ackCounts();
          return all.length > 0 && all.every((e) => acked.has(e.id)) && all;
        },
        20_000,
      );
      const leads = await store.db
        .selectFrom('leads')
        .select(['id', 'sms_status', 'voice_status'])
        .where('organization_id', '=', issued.organizationId)
        .execute();
      const leadById = new Map(leads.map((l) => [l.id, l]));
      const eventsOf = (leadId: string) => events.filter((e) => e.data.leadId === leadId);

      expect(events.every((e) => e.type === 'optOut')).toBe(true);
      // Acknowledged (200) ⇒ committed ⇒ its two optOut events were delivered.
      for (const id of acknowledged) {
        expect(leadById.get(id)).toMatchObject({ sms_status: 'unsubscribed', voice_status: 'unsubscribed' });
        expect(
          eventsOf(id)
            .map((e) => e.data.channel)
            .sort(),
        ).toEqual(['call', 'sms']);
      }
      // Every delivery is of an event in the outbox, about a change that committed.
      for (const d of receiver.acknowledged) {
        const event = events.find((e) => e.id === d.id);
        expect(event, `delivered ${d.id} is not in the outbox`).toBeDefined();
        expect(d.json.data).toMatchObject({ leadId: event!.data.leadId, channel: event!.data.channel });
        const lead = leadById.get(event!.data.leadId)!;
        // Webhooks spell voice `call`, as the hosted service's reference does.
        const column = event!.data.channel === 'call' ? 'voice_status' : 'sms_status';
        expect(lead[column]).toBe('unsubscribed');
        expect(d.standardSignatureValid && d.legacySignatureValid).toBe(true);
      }
      // A change that did not commit left no event; one that did (answered or not) left both.
      for (const lead of leads) {
        const channels = eventsOf(lead.id)
          .map((e) => e.data.channel)
          .sort();
        if (lead.sms_status === 'subscribed') expect(channels).toEqual([]);
        else expect(channels).toEqual(['call', 'sms']);
      }
      const notCommitted = leads.filter((l) => l.sms_status === 'subscribed').length;
      console.info(
        `[${dialect}] crash: ${acknowledged.length}/${LEADS} answered 200, ${LEADS - notCommitted} committed, ` +
          `${events.length} events, ${receiver.acknowledged.length} acknowledged deliveries (${receiver.acknowledged.length - events.length} repeats)`,
      );
    }, 60_000);
  });
}
