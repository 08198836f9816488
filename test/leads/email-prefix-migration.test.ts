import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/platform/db/connect.js';
import { migrations } from '../../src/platform/db/migrate.js';
import { emailStartsWith } from '../../src/platform/db/prefix.js';
import { dialects, freshDatabase } from '../support/harness.js';
import { migrateWith, migrationsUntil } from '../support/migrations.js';

/**
 * 0022: email prefix search reads the stored (lowercased) email, so the
 * expression index on lower(email) goes: one random-key index fewer on every
 * lead insert. An email stored with capitals before writers lowercased them is
 * lowercased, and the search's range is still an index range on both dialects.
 */
for (const dialect of dialects()) {
  describe(`migration 0022_lead_email_prefix (${dialect})`, () => {
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

    const indexes = async (): Promise<string[]> => {
      const rows =
        dialect === 'postgres'
          ? (
              await sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'leads'`.execute(
                db(),
              )
            ).rows
          : (
              await sql<{
                name: string;
              }>`select name from sqlite_master where type = 'index' and tbl_name = 'leads'`.execute(db())
            ).rows;
      return rows.map((r) => r.name).sort();
    };

    it('lowercases stored emails, drops the lower(email) index, and the prefix search is an index range', async () => {
      await migrateWith(db(), migrationsUntil('0021_punctual_jobs'));
      expect(await indexes()).toContain('leads_email_lower_idx');
      const at = '2026-01-01T00:00:00.000Z';
      await db()
        .insertInto('organizations')
        .values({ id: 'o1', name: 'one', settings: '{}', created_at: at })
        .execute();
      const lead = (id: string, email: string | null) => ({
        organization_id: 'o1',
        id,
        first_name: 'A',
        last_name: 'B',
        phone: `+1415555010${id.slice(1)}`,
        email,
        customer_profile: 'default',
        additional_info: '{}',
        has_replied: 0,
        is_hot: 0,
        is_qualified: 0,
        is_ai_on: 0,
        sms_status: 'subscribed',
        voice_status: 'subscribed',
        email_status: 'subscribed',
        created_at: at,
        updated_at: at,
      });
      await db()
        .insertInto('leads')
        .values([lead('l1', 'Ann.Lee@Example.COM'), lead('l2', 'bob@example.com'), lead('l3', null)])
        .execute();

      await migrateWith(db(), migrations);

      const emails = await db().selectFrom('leads').select(['id', 'email']).orderBy('id').execute();
      expect(emails).toEqual([
        { id: 'l1', email: 'ann.lee@example.com' },
        { id: 'l2', email: 'bob@example.com' },
        { id: 'l3', email: null },
      ]);
      const after = await indexes();
      expect(after).not.toContain('leads_email_lower_idx');
      expect(after).toContain('leads_email_id_idx');
      if (dialect === 'postgres') expect(after).toContain('leads_email_prefix_idx');

      const arm = sql`select leads.id from leads where leads.organization_id = ${'o1'} and ${emailStartsWith(store.db, 'ann.')}`;
      expect((await sql<{ id: string }>`${arm}`.execute(db())).rows.map((r) => r.id)).toEqual(['l1']);
      // The range is read from an index, never by scanning the organization's leads.
      const plan =
        dialect === 'postgres'
          ? await db()
              .transaction()
              .execute(async (tx) => {
                await sql`set local enable_seqscan = off`.execute(tx);
                return (await sql<{ 'QUERY PLAN': string }>`explain ${arm}`.execute(tx)).rows
                  .map((r) => r['QUERY PLAN'])
                  .join('\n');
              })
          : (await sql<{ detail: string }>`explain query plan ${arm}`.execute(db())).rows
              .map((r) => r.detail)
              .join('\n');
      expect(plan).toContain(dialect === 'postgres' ? 'leads_email_prefix_idx' : 'leads_email_id_idx');
      expect(plan).toMatch(dialect === 'postgres' ? /Index Cond: .*email/ : /email>\? AND email<\?/);
    });
  });
}
