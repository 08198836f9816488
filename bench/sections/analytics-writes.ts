import { performance } from 'node:perf_hooks';
import { noteLeadsCreated } from '../../src/analytics-records/recorder.repository.js';
import { insertLead } from '../../src/lead-records/leads.repository.js';
import { newLeadRow } from '../../src/leads/new-lead.js';
import { insertMessage, setMessageStatus } from '../../src/messages/messages.repository.js';
import { openStore } from '../../src/platform/db/connect.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { newId } from '../../src/platform/ids.js';
import type { Row } from '../lib/table.js';

/**
 * What the analytics rollups add to the writes that carry them (issue 31):
 * the same transactions with and without the analytics statements, on the
 * same database, alternated in rounds (best round of each), so machine drift
 * hits both alike.
 * - a lead created by the API: insert the lead; with analytics, also its
 *   analytics row and the `leads` counters (what leads.service does);
 * - an import batch: 500 leads in one multi-row insert; with analytics, their
 *   rows and the counters (what imports/batch.ts does);
 * - a send accepted: the message moves to `sent` (setMessageStatus, which now
 *   counts it: the lead's first contact, its latency, the number's counters);
 *   without analytics: the same row update written directly.
 */
export async function analyticsWritesSection(dialect: 'sqlite' | 'postgres', databaseUrl: string, quick: boolean) {
  const section = `analytics-writes-${dialect}`;
  const store = openStore(databaseUrl);
  await migrateToLatest(store);
  const db = store.db;
  const org = 'bench-writes';
  const at = () => new Date().toISOString();
  await db.insertInto('organizations').values({ id: org, name: org, settings: '{}', created_at: at() }).execute();
  await db
    .insertInto('customer_profiles')
    .values({
      organization_id: org,
      id: newId(),
      name: 'default',
      description: null,
      instructions: null,
      opening_message: null,
      questions: '[]',
      created_at: at(),
      updated_at: at(),
    })
    .execute();
  let phone = 0;
  const lead = () =>
    newLeadRow(
      {
        firstName: 'A',
        phone: `+1415${String(2_000_000 + phone++).padStart(7, '0')}`,
        email: null,
        customerProfile: 'default',
        additionalInfo: {},
        isAiOn: false,
      } as never,
      new Map(),
      at(),
    );
  const n = quick ? 300 : 1500;
  const time = async (fn: () => Promise<void>, count: number) => {
    const t = performance.now();
    for (let i = 0; i < count; i++) await fn();
    return ((performance.now() - t) * 1000) / count;
  };
  const apiCreate = (analytics: boolean) => () =>
    db.transaction().execute(async (trx) => {
      const row = lead();
      await insertLead(trx, org, row);
      if (analytics) await noteLeadsCreated(trx, org, [row], 'api');
    });
  const batch = (analytics: boolean) => () =>
    db.transaction().execute(async (trx) => {
      const rows = Array.from({ length: 500 }, lead);
      for (let i = 0; i < rows.length; i += 100)
        await trx
          .insertInto('leads')
          .values(rows.slice(i, i + 100).map((r) => ({ ...r, organization_id: org })))
          .execute();
      if (analytics) await noteLeadsCreated(trx, org, rows, 'import:bench');
    });
  // A lead (with analytics) and a message waiting to be sent, made ahead; the timed part is the move to `sent`.
  const pending: { leadId: string; id: string }[] = [];
  const prepare = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const row = lead();
      const id = newId();
      await db.transaction().execute(async (trx) => {
        await insertLead(trx, org, row);
        await noteLeadsCreated(trx, org, [row], 'api');
        await insertMessage(trx, org, {
          id,
          lead_id: row.id,
          channel: 'sms',
          direction: 'outbound',
          owner: 'user',
          text: 'hi',
          is_ai_generated: 0,
          status: 'sending',
          status_reason: null,
          scheduled_at: at(),
          created_at: at(),
        });
      });
      pending.push({ leadId: row.id, id });
    }
  };
  const send = (analytics: boolean) => async () => {
    const m = pending.pop()!;
    await db.transaction().execute(async (trx) => {
      if (analytics)
        await setMessageStatus(trx, org, m.id, {
          status: 'sent',
          reason: null,
          providerMessageId: `SM${m.id}`,
          attemptAt: null,
          attemptFrom: null,
          at: at(),
        });
      else
        await trx
          .updateTable('messages')
          .set({
            status: 'sent',
            status_reason: null,
            status_code: null,
            provider_message_id: `SM${m.id}`,
            attempt_at: null,
            attempt_from: null,
            updated_at: at(),
          })
          .where('organization_id', '=', org)
          .where('id', '=', m.id)
          .execute();
    });
  };
  const best: Record<string, number> = {};
  const keep = (k: string, us: number) => (best[k] = Math.min(best[k] ?? Infinity, us));
  for (let round = 0; round < 2; round++) {
    for (const analytics of [false, true]) {
      keep(`create-${analytics}`, await time(apiCreate(analytics), n));
      keep(`batch-${analytics}`, await time(batch(analytics), quick ? 4 : 10));
      await prepare(n);
      keep(`send-${analytics}`, await time(send(analytics), n));
    }
  }
  await store.close();
  const rows: Row[] = [];
  for (const [k, label, unit] of [
    ['create', 'a lead created (API transaction)', 'µs'],
    ['batch', 'an import batch of 500 leads', 'µs'],
    ['send', 'a send accepted (first contact)', 'µs'],
  ] as const) {
    const without = best[`${k}-false`]!;
    const withIt = best[`${k}-true`]!;
    rows.push({
      section,
      measure: `${label}: with analytics (${unit})`,
      value: withIt.toFixed(0),
      reference: without.toFixed(0),
      ratio: `${(withIt / without).toFixed(2)}x`,
      target: 'report',
      met: null,
    });
  }
  return { rows, raw: best };
}
