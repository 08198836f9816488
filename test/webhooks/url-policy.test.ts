import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { Worker } from '../../src/worker/worker.js';
import { describeEachDialect } from '../support/harness.js';
import {
  FAST_RETRIES,
  FAST_WEBHOOKS,
  deliveriesOf,
  eventually,
  freshOrg,
  optOutLead,
  receiverPool,
  registerEndpoint,
} from '../support/webhooks.js';

const REFUSED_ADDRESS =
  /^refused by this worker's URL policy: url must not point to a private, loopback or link-local address/;

/**
 * The URL policy is the delivering process's, not the saving one's: endpoints
 * are saved through an API process that allows private targets, and delivered
 * by a worker (same database) started with a configuration that does not. Every delivery is refused before
 * any request, recorded as one failed attempt with the reason, and not retried.
 */
describeEachDialect(
  'webhook URL policy at delivery time',
  (ctx) => {
    const receiver = receiverPool();
    let worker: Worker | undefined;

    beforeAll(async () => {
      const config = loadConfig({
        DATABASE_URL: ctx().config.databaseUrl,
        LOG_LEVEL: 'silent',
        PARLEY_WORKER_POLL_MS: '20',
        PARLEY_WEBHOOK_RETRY_SCHEDULE: FAST_RETRIES,
      });
      expect(config.allowPrivateWebhookUrls).toBe(false);
      // The API process's store, shared (SQLite allows one writing process); only the configuration differs.
      worker = new Worker({ ...ctx().server.deps, config });
      worker.start();
    });
    afterAll(async () => {
      await worker?.stop();
    });

    async function refusedDeliveries(url: (port: number) => string) {
      const ts = ctx();
      const client = await freshOrg(ts);
      const r = await receiver();
      const endpoint = await registerEndpoint(client, r, ['optOut'], url(r.port));
      await optOutLead(client);
      const deliveries = await eventually('both deliveries finished', async () => {
        const list = await deliveriesOf(client, endpoint.id);
        return list.length === 2 && list.every((d) => d.status !== 'pending') && list;
      });
      return { deliveries, r };
    }

    it.concurrent('refuses http to a private IP literal without a request, once, as failed', async () => {
      const { deliveries, r } = await refusedDeliveries((port) => `http://127.0.0.1:${port}/hook`);
      for (const d of deliveries) {
        expect(d).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: null, nextAttemptAt: null });
        expect(d.lastError).toBe(
          "refused by this worker's URL policy: url must use https (http is allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)",
        );
      }
      expect(r.received).toEqual([]);
    });

    it.concurrent.each([
      ['a loopback IPv4 literal', (port: number) => `https://127.0.0.1:${port}/hook`],
      ['an IPv4-compatible IPv6 literal of loopback', (port: number) => `https://[::127.0.0.1]:${port}/hook`],
      ['an IPv4-mapped IPv6 literal in hex', (port: number) => `https://[::ffff:7f00:1]:${port}/hook`],
      ['a NAT64 literal of loopback', (port: number) => `https://[64:ff9b::127.0.0.1]:${port}/hook`],
    ])('refuses https to %s before connecting', async (_name, url) => {
      const { deliveries } = await refusedDeliveries(url);
      for (const d of deliveries) {
        expect(d).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: null, nextAttemptAt: null });
        expect(d.lastError).toMatch(REFUSED_ADDRESS);
      }
    });

    it.concurrent('refuses a host name that resolves to loopback at connect time, once, as failed', async () => {
      const { deliveries, r } = await refusedDeliveries((port) => `https://localhost:${port}/hook`);
      for (const d of deliveries) {
        expect(d).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: null, nextAttemptAt: null });
        expect(d.lastError).toMatch(
          /^refused by this worker's URL policy: .*refused: localhost resolves only to non-public addresses/,
        );
      }
      expect(r.received).toEqual([]);
    });
  },
  { ...FAST_WEBHOOKS, PARLEY_WORKER: 'false' },
);
