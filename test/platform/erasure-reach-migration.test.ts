import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { migrations } from '../../src/platform/db/migrate.js';
import { dialects, freshDatabase } from '../support/harness.js';
import { migrateWith, migrationsUntil } from '../support/migrations.js';

/**
 * 0025: free text an email provider wrote into the consent ledger's actor is
 * reduced to its code; rejected rows stored without address keys (which an
 * erasure could not find) go; the ids of inbound messages already received
 * become provider receipts, so a replay of one is still refused.
 */
for (const dialect of dialects()) {
  describe(`migration 0025_erasure_reach (${dialect})`, () => {
    let store: Store;
    let drop: () => Promise<void>;
    const db = () => store.db as unknown as Kysely<any>;
    beforeAll(async () => {
      const fresh = await freshDatabase(dialect);
      drop = fresh.drop;
      store = openStore(fresh.url);
    });
    afterAll(async () => {
      await store.close();
      await drop();
    });

    it('scrubs free-text actors, drops unkeyed rejected rows and keeps received ids as receipts', async () => {
      await migrateWith(db(), migrationsUntil('0022_lead_email_prefix'));
      const at = '2026-01-01T00:00:00.000Z';
      const ledger = (id: string, reason: string | null, actor: string | null) => ({
        organization_id: 'o1',
        id,
        lead_id: null,
        channel: 'email',
        address_digest: 'd',
        action: 'optOut',
        source: 'bounce',
        reason,
        actor,
        inbound_message_id: null,
        created_at: at,
      });
      await db()
        .insertInto('consent_ledger')
        .values([
          ledger('c1', 'BOUNCE', 'email-provider: 550 5.1.1 <ann.lee@example.org> (Ann Lee) user unknown'),
          ledger('c2', 'COMPLAINT', 'email-provider: abuse report about Ann Lee'),
          ledger('c3', 'BOUNCE', 'email-provider'),
          ledger('c4', null, 'key:k1'),
          ledger('c5', null, null),
        ])
        .execute();
      await db()
        .insertInto('imports')
        .values({
          organization_id: 'o1',
          id: 'i1',
          status: 'completed',
          source: 'api',
          options: '{}',
          started_at: at,
          heartbeat_at: at,
        })
        .execute();
      await db()
        .insertInto('import_rejects')
        .values({ organization_id: 'o1', import_id: 'i1', row_number: 2, raw: '["Ann","+14155550100"]', reason: 'x' })
        .execute();
      const message = (id: string, channel: string, direction: string, sid: string | null) => ({
        organization_id: 'o1',
        id,
        lead_id: 'l1',
        channel,
        direction,
        owner: 'lead',
        text: 'hi',
        is_ai_generated: 0,
        status: 'received',
        status_reason: null,
        scheduled_at: null,
        created_at: at,
        provider_message_id: sid,
      });
      await db()
        .insertInto('messages')
        .values([
          message('m1', 'sms', 'inbound', 'SMone'),
          message('m2', 'voice', 'inbound', 'CAtwo'),
          message('m3', 'sms', 'outbound', 'SMout'),
          message('m4', 'sms', 'inbound', null),
        ])
        .execute();

      await migrateWith(db(), migrations);

      const actors = await db().selectFrom('consent_ledger').select(['id', 'actor']).orderBy('id').execute();
      expect(actors).toEqual([
        { id: 'c1', actor: 'email-provider:bounce:hard' },
        { id: 'c2', actor: 'email-provider:complaint' },
        { id: 'c3', actor: 'email-provider:bounce:hard' },
        { id: 'c4', actor: 'key:k1' },
        { id: 'c5', actor: null },
      ]);
      expect(await db().selectFrom('import_rejects').selectAll().execute()).toEqual([]);
      expect((await db().selectFrom('imports').select('id').execute()).map((r) => r.id)).toEqual(['i1']);
      const receipts = await db()
        .selectFrom('provider_receipts')
        .select(['organization_id', 'id', 'received_at'])
        .orderBy('id')
        .execute();
      expect(receipts).toEqual([
        { organization_id: 'o1', id: 'twilio:CAtwo:gather', received_at: at },
        { organization_id: 'o1', id: 'twilio:SMone', received_at: at },
      ]);
    });
  });
}
