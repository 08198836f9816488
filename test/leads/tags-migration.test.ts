import type { Kysely, Migration } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import * as core from '../../src/platform/db/migrations/0001_core.js';
import * as delivery from '../../src/platform/db/migrations/0002_delivery.js';
import * as conversations from '../../src/platform/db/migrations/0003_conversations.js';
import * as sendingNumbers from '../../src/platform/db/migrations/0004_sending_numbers.js';
import * as instanceSecrets from '../../src/platform/db/migrations/0005_instance_secrets.js';
import * as agentTurns from '../../src/platform/db/migrations/0006_agent_turns.js';
import * as compliance from '../../src/platform/db/migrations/0007_compliance.js';
import * as leadListing from '../../src/platform/db/migrations/0008_lead_listing.js';
import { dialects, freshDatabase } from '../support/harness.js';
import { migrateWith } from '../support/migrations.js';

/**
 * 0008 on a database that already has tags: before it, a tag id was one tag on
 * one lead; after it, one name is one tag of the organization, every lead
 * carrying it under the same id (the smallest of the old ones), nothing lost.
 */
const BEFORE: Record<string, Migration> = {
  '0001_core': core,
  '0002_delivery': delivery,
  '0003_conversations': conversations,
  '0004_sending_numbers': sendingNumbers,
  '0005_instance_secrets': instanceSecrets,
  '0006_agent_turns': agentTurns,
  '0007_compliance': compliance,
};

for (const dialect of dialects()) {
  describe(`migration 0008_lead_listing (${dialect})`, () => {
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

    it('merges the tags of one name under one id per organization, keeps every lead tagged, and keys lead_tags by lead', async () => {
      await migrateWith(db(), BEFORE);
      const at = '2026-01-01T00:00:00.000Z';
      await db()
        .insertInto('organizations')
        .values([
          { id: 'o1', name: 'one', settings: '{}', created_at: at },
          { id: 'o2', name: 'two', settings: '{}', created_at: at },
        ])
        .execute();
      const tag = (org: string, id: string, lead: string, name: string, created = at) => ({
        organization_id: org,
        id,
        lead_id: lead,
        name,
        condition: `${name}?`,
        created_at: created,
      });
      await db()
        .insertInto('lead_tags')
        .values([
          tag('o1', 't3', 'l1', 'hot'),
          tag('o1', 't1', 'l2', 'hot', '2026-02-01T00:00:00.000Z'),
          tag('o1', 't2', 'l2', 'vip'),
          tag('o1', 't4', 'l2', 'hot'), // the same name twice on one lead: one tag after
          tag('o2', 't9', 'l9', 'hot'),
        ])
        .execute();

      await migrateWith(db(), { ...BEFORE, '0008_lead_listing': leadListing });

      const tags = await db()
        .selectFrom('tags')
        .select(['organization_id', 'id', 'name'])
        .orderBy('organization_id')
        .orderBy('id')
        .execute();
      expect(tags).toEqual([
        { organization_id: 'o1', id: 't1', name: 'hot' },
        { organization_id: 'o1', id: 't2', name: 'vip' },
        { organization_id: 'o2', id: 't9', name: 'hot' },
      ]);
      const onLeads = await db()
        .selectFrom('lead_tags')
        .select(['organization_id', 'lead_id', 'id', 'name', 'condition'])
        .orderBy('organization_id')
        .orderBy('lead_id')
        .orderBy('id')
        .execute();
      expect(onLeads).toEqual([
        { organization_id: 'o1', lead_id: 'l1', id: 't1', name: 'hot', condition: 'hot?' },
        { organization_id: 'o1', lead_id: 'l2', id: 't1', name: 'hot', condition: 'hot?' },
        { organization_id: 'o1', lead_id: 'l2', id: 't2', name: 'vip', condition: 'vip?' },
        { organization_id: 'o2', lead_id: 'l9', id: 't9', name: 'hot', condition: 'hot?' },
      ]);
      // One id on two leads is now allowed; twice on one lead is not.
      await db()
        .insertInto('lead_tags')
        .values(tag('o1', 't2', 'l1', 'vip'))
        .execute();
      await expect(
        db()
          .insertInto('lead_tags')
          .values(tag('o1', 't2', 'l1', 'vip'))
          .execute(),
      ).rejects.toThrow();
      // One name is one tag of an organization.
      await expect(
        db()
          .insertInto('tags')
          .values({ organization_id: 'o1', id: 'tx', name: 'hot', condition: '', created_at: at })
          .execute(),
      ).rejects.toThrow();
      expect(await db().selectFrom('deleted_leads').selectAll().execute()).toEqual([]);
    });
  });
}
