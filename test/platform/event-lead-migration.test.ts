import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrations } from '../../src/platform/db/migrate.js';
import { listDeliveries } from '../../src/webhooks/deliveries.repository.js';
import type { Db } from '../../src/platform/db/schema.js';
import { dialects } from '../support/harness.js';
import { storeForBlock } from '../support/store.js';
import { migrateWith, migrationsUntil } from '../support/migrations.js';

/**
 * 0045: the events stored before it get their lead from the payload, and their deliveries the event's lead, so
 * an endpoint's deliveries of a lead are found by index for old events as for new ones; an event about no lead,
 * or one whose leadId is null, gets none.
 */
for (const dialect of dialects()) {
  describe(`migration 0045_event_lead (${dialect})`, () => {
    const store = storeForBlock(dialect, { migrated: false });
    const db = () => store().db as unknown as Kysely<any>;

    it("fills in each stored event's lead, and the deliveries of a lead are found through it", async () => {
      await migrateWith(db(), migrationsUntil('0044_analytics_day_percentiles'));
      const at = '2026-01-01T00:00:00.000Z';
      const lead = '0190a0b0-0000-7000-8000-000000000001';
      const other = '0190a0b0-0000-7000-8000-000000000002';
      const event = (id: string, payload: unknown) => ({
        organization_id: 'o1',
        id,
        type: 'optOut',
        payload: JSON.stringify(payload),
        created_at: at,
        dispatched_at: at,
      });
      await db()
        .insertInto('events')
        .values([
          event('e1', { leadId: lead, channel: 'sms' }),
          event('e2', { leadId: other, channel: 'sms' }),
          event('e3', { campaignId: 'c1' }),
          event('e4', { leadId: null, phone: '+14155550100' }),
          event('e5', { leadId: lead, erased: true }),
        ])
        .execute();
      const delivery = (id: string, eventId: string) => ({
        organization_id: 'o1',
        id,
        endpoint_id: 'w1',
        event_id: eventId,
        event_type: 'optOut',
        status: 'delivered',
        created_at: at,
        updated_at: at,
      });
      await db()
        .insertInto('webhook_deliveries')
        .values([delivery('d1', 'e1'), delivery('d2', 'e2'), delivery('d3', 'e3'), delivery('d5', 'e5')])
        .execute();
      await migrateWith(db(), migrations);
      const leads = await db().selectFrom('events').select(['id', 'lead_id']).orderBy('id').execute();
      expect(leads).toEqual([
        { id: 'e1', lead_id: lead },
        { id: 'e2', lead_id: other },
        { id: 'e3', lead_id: null },
        { id: 'e4', lead_id: null },
        { id: 'e5', lead_id: lead },
      ]);
      const delivered = await db().selectFrom('webhook_deliveries').select(['id', 'lead_id']).orderBy('id').execute();
      expect(delivered).toEqual([
        { id: 'd1', lead_id: lead },
        { id: 'd2', lead_id: other },
        { id: 'd3', lead_id: null },
        { id: 'd5', lead_id: lead },
      ]);
      const found = await listDeliveries(store().db as Db, 'o1', 'w1', undefined, 10, { leadId: lead.toUpperCase() });
      expect(found.map((d) => d.id)).toEqual(['d5', 'd1']);
      expect(await listDeliveries(store().db as Db, 'o2', 'w1', undefined, 10, { leadId: lead })).toEqual([]);
      expect(await listDeliveries(store().db as Db, 'o1', 'w2', undefined, 10, { leadId: lead })).toEqual([]);
    });
  });
}
