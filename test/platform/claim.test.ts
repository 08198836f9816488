import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/organizations/api-keys.service.js';
import { claimDue } from '../../src/platform/db/claim.js';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { newId } from '../../src/platform/ids.js';
import { insertDeliveries } from '../../src/webhooks/deliveries.repository.js';
import { dialects, freshDatabase } from '../support/harness.js';

/**
 * The queue claim (platform/db/claim.ts) on its own, on both dialects: due
 * rows oldest first, leased once, and with a spread over endpoints, the rows
 * beyond an endpoint's room are given back at once (claimable by the next
 * claim), not left leased until their lease lapses.
 */
for (const dialect of dialects()) {
  describe(`claimDue (${dialect})`, () => {
    let store: Store;
    let drop: () => Promise<void>;
    let org: string;
    const t0 = new Date('2026-01-01T00:00:00Z');
    const at = (s: number) => new Date(t0.getTime() + s * 1000).toISOString();
    const lease = (s: number) => at(1000 + s);

    beforeAll(async () => {
      const fresh = await freshDatabase(dialect);
      drop = fresh.drop;
      store = openStore(fresh.url);
      await migrateToLatest(store);
      org = (await issueKey(store.db, `claim-${dialect}`)).organizationId;
    });
    afterAll(async () => {
      await store.close();
      await drop();
    });

    async function due(endpoint: string, count: number, from: number): Promise<string[]> {
      const ids = Array.from({ length: count }, () => newId());
      await insertDeliveries(
        store.db,
        ids.map((id, i) => ({
          organization_id: org,
          id,
          endpoint_id: endpoint,
          event_id: newId(),
          event_type: 'optOut',
          status: 'pending' as const,
          attempts: 0,
          next_attempt_at: at(from + i),
          lease_until: null,
          last_status_code: null,
          last_error: null,
          created_at: at(0),
          updated_at: at(0),
          delivered_at: null,
        })),
      );
      return ids;
    }

    it('leases due rows oldest first, and never the same row twice while leased', async () => {
      const ids = await due('ep-order', 3, 10);
      const first = await claimDue(store.db, 'webhook_deliveries', 'next_attempt_at', at(100), lease(0), 2);
      expect(first.map((r) => r.id)).toEqual(ids.slice(0, 2));
      const second = await claimDue(store.db, 'webhook_deliveries', 'next_attempt_at', at(100), lease(0), 10);
      expect(second.map((r) => r.id)).toEqual([ids[2]]);
      expect(await claimDue(store.db, 'webhook_deliveries', 'next_attempt_at', at(100), lease(0), 10)).toEqual([]);
    });

    it("with a spread, keeps only the endpoint's room and gives the rest back at once", async () => {
      const ids = await due('ep-spread', 4, 200);
      const spread = { column: 'endpoint_id' as const, max: 2, inFlight: new Map([['ep-spread', 1]]) };
      const kept = await claimDue(store.db, 'webhook_deliveries', 'next_attempt_at', at(300), lease(1), 10, { spread });
      expect(kept.map((r) => r.id)).toEqual([ids[0]]);
      // The three beyond the room are not leased: the very next claim (room made) takes them.
      const next = await claimDue(store.db, 'webhook_deliveries', 'next_attempt_at', at(300), lease(1), 10);
      expect(next.map((r) => r.id).sort()).toEqual(ids.slice(1).sort());
    });
  });
}
