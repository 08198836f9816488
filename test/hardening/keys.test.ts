import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey, revokeKey } from '../../src/organizations/api-keys.service.js';
import { digestKey, displayPrefix, sameDigest } from '../../src/platform/auth/keys.js';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { sleep } from '../support/assert.js';
import { dialects, freshDatabase } from '../support/harness.js';
import { buildCli, freePort, killStarted, spawnParley, waitReady, type ParleyProcess } from '../support/processes.js';

/**
 * API keys across processes: a key revoked in the database stops working on
 * every server process within PARLEY_KEY_CACHE_MS (one second by default),
 * although each process keeps resolved keys in its own cache. Digest-only
 * storage and the prefix are covered by test/platform/auth.test.ts.
 */
const CACHE_MS = 1000;

describe('digest comparison', () => {
  it('is a constant-time comparison that answers false, never throws, for digests of other keys, other lengths or garbage', () => {
    const key = 'pk_live_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
    expect(sameDigest(digestKey(key), digestKey(key))).toBe(true);
    expect(sameDigest(digestKey(key), digestKey(`${key}x`))).toBe(false);
    expect(sameDigest(digestKey(key), digestKey(key).slice(0, 62))).toBe(false);
    expect(sameDigest(digestKey(key), 'not hex at all')).toBe(false);
    expect(sameDigest(digestKey(key), '')).toBe(false);
    expect(displayPrefix(key)).toBe('pk_live_abcdefgh');
  });
});

for (const dialect of dialects()) {
  describe(`key revocation seen by two server processes within ${CACHE_MS} ms [${dialect}]`, () => {
    let database: Awaited<ReturnType<typeof freshDatabase>>;
    let store: Store;
    const servers: { proc: ParleyProcess; url: string }[] = [];

    beforeAll(async () => {
      await buildCli();
      database = await freshDatabase(dialect);
      store = openStore(database.url, 2);
      await migrateToLatest(store);
      for (let i = 0; i < 2; i++) {
        const port = await freePort();
        const proc = spawnParley(['serve', '--no-worker'], {
          DATABASE_URL: database.url,
          PORT: String(port),
          HOST: '127.0.0.1',
          PARLEY_RATE_LIMIT: '0',
          PARLEY_KEY_CACHE_MS: String(CACHE_MS),
        });
        servers.push({ proc, url: `http://127.0.0.1:${port}` });
      }
      await Promise.all(servers.map((s) => waitReady(s.proc, s.url)));
    }, 240_000);

    afterAll(async () => {
      await killStarted();
      await store?.close();
      await database?.drop();
    });

    it('every request that starts a second after the revocation is refused, on both processes; other keys keep working', async () => {
      const doomed = await issueKey(store.db, 'acme', ['leads:read']);
      const survivor = await issueKey(store.db, 'acme', ['leads:read']);
      const get = (url: string, key: string) =>
        fetch(`${url}/v1/leads?limit=1`, { headers: { 'x-api-key': key } }).then((r) => r.status);
      // Both processes have the key in their cache.
      for (const s of servers) expect(await get(s.url, doomed.key)).toBe(200);

      const seen: { server: number; startedAt: number; status: number }[] = [];
      let revokedAt = Infinity;
      let stop = false;
      const poll = async (server: number) => {
        while (!stop) {
          const startedAt = Date.now();
          seen.push({ server, startedAt, status: await get(servers[server]!.url, doomed.key) });
        }
      };
      const pollers = servers.map((_, i) => poll(i));
      await sleep(300);
      expect(await revokeKey(store.db, doomed.prefix)).toBe(1);
      revokedAt = Date.now();
      await sleep(CACHE_MS + 500);
      stop = true;
      await Promise.all(pollers);

      for (const [i] of servers.entries()) {
        const mine = seen.filter((r) => r.server === i);
        // Served until the revocation, refused by every request that starts one second after it.
        expect(
          mine.some((r) => r.startedAt < revokedAt && r.status === 200),
          `server ${i} served the key before`,
        ).toBe(true);
        const late = mine.filter((r) => r.startedAt >= revokedAt + CACHE_MS);
        expect(late.length, `server ${i} polled after the bound`).toBeGreaterThan(0);
        expect(
          late.filter((r) => r.status !== 403),
          `server ${i} served the revoked key after ${CACHE_MS} ms`,
        ).toEqual([]);
      }
      for (const s of servers) expect(await get(s.url, survivor.key)).toBe(200);
    });
  });
}
