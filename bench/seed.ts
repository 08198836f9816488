/**
 * Bench data generator: an organization with N leads and one lead with a long
 * message history, written straight into a migrated store (batched inserts in
 * large transactions; 1M leads in well under a minute on SQLite).
 *
 *   node --import tsx bench/seed.ts --db sqlite:./bench/data/1m.db --leads 1000000 --messages 100000
 */
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { v7 } from 'uuid';
import { issueKey } from '../src/organizations/api-keys.service.js';
import { openStore } from '../src/platform/db/connect.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';

export interface SeedResult {
  key: string;
  organizationId: string;
  /** A lead with the long history, one with a short one, and a sample of ordinary lead ids and phones. */
  historyLeadId: string;
  sampleLeadIds: string[];
  samplePhones: string[];
  seconds: number;
}

const LEAD_COLUMNS = [
  'organization_id',
  'id',
  'first_name',
  'last_name',
  'phone',
  'email',
  'customer_profile',
  'time_zone',
  'external_lead_id',
  'additional_info',
  'summary',
  'has_replied',
  'is_hot',
  'is_qualified',
  'is_ai_on',
  'sms_status',
  'voice_status',
  'email_status',
  'sms_opt_out_source',
  'voice_opt_out_source',
  'email_opt_out_source',
  'memory_cleared_at',
  'created_at',
  'updated_at',
  'last_activity_at',
] as const;
const MESSAGE_COLUMNS = [
  'organization_id',
  'id',
  'lead_id',
  'channel',
  'direction',
  'owner',
  'text',
  'is_ai_generated',
  'status',
  'status_reason',
  'scheduled_at',
  'created_at',
  'purpose',
] as const;

export const phoneOf = (i: number): string => `+1${String(2012000000 + i)}`;

function leadRow(org: string, i: number, at: string): unknown[] {
  return [
    org,
    v7(),
    `Lead${i}`,
    'Bench',
    phoneOf(i),
    i % 3 === 0 ? `lead${i}@example.com` : null,
    'default',
    null,
    `crm-${i}`,
    '{"source":"bench"}',
    null,
    0,
    0,
    0,
    1,
    'subscribed',
    'subscribed',
    'subscribed',
    null,
    null,
    null,
    null,
    at,
    at,
    null,
  ];
}

function messageRow(org: string, leadId: string, i: number, at: string): unknown[] {
  const inbound = i % 2 === 1;
  return [
    org,
    v7(),
    leadId,
    'sms',
    inbound ? 'inbound' : 'outbound',
    inbound ? 'lead' : 'user',
    `bench message ${i}`,
    inbound ? 0 : 1,
    inbound ? 'received' : 'sent',
    null,
    null,
    at,
    'conversation',
  ];
}

type Writer = (table: 'leads' | 'messages', columns: readonly string[], rows: unknown[][]) => Promise<void>;

function sqliteWriter(path: string): { write: Writer; close(): void } {
  const db = new SqliteDatabase(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF'); // seeding only: the bench itself runs with durable commits
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    write: async (table, columns, rows) => {
      const sql = `insert into ${table} (${columns.join(',')}) values (${columns.map(() => '?').join(',')})`;
      let st = statements.get(sql);
      if (!st) statements.set(sql, (st = db.prepare(sql)));
      const insert = st;
      db.transaction((rs: unknown[][]) => {
        for (const r of rs) insert.run(...r);
      })(rows);
    },
    close: () => db.close(),
  };
}

function postgresWriter(url: string): { write: Writer; close(): Promise<void> } {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  return {
    // One statement per batch: unnest of one array per column.
    write: async (table, columns, rows) => {
      const arrays = columns.map((_, c) => rows.map((r) => r[c]));
      const types = columns.map((col) =>
        ['has_replied', 'is_hot', 'is_qualified', 'is_ai_on', 'is_ai_generated'].includes(col) ? 'int[]' : 'text[]',
      );
      const sql = `insert into ${table} (${columns.join(',')}) select * from unnest(${types.map((t, i) => `$${i + 1}::${t}`).join(',')})`;
      await pool.query(sql, arrays);
    },
    close: () => pool.end(),
  };
}

export async function seed(
  databaseUrl: string,
  leads: number,
  historyMessages: number,
  log = (_s: string) => {},
): Promise<SeedResult> {
  const started = Date.now();
  const store = openStore(databaseUrl, 2);
  await migrateToLatest(store);
  const orgName = `bench-${leads}`;
  const issued = await issueKey(store.db, orgName);
  await store.db
    .updateTable('organizations')
    .set({ settings: JSON.stringify({ contactHours: { start: '00:00', end: '00:00' } }) })
    .where('id', '=', issued.organizationId)
    .execute();
  await store.close();
  const writer = databaseUrl.startsWith('sqlite:') ? sqliteWriter(databaseUrl.slice(7)) : postgresWriter(databaseUrl);
  const org = issued.organizationId;
  const at = new Date().toISOString();
  const batch = 10_000;
  const sampleLeadIds: string[] = [];
  const samplePhones: string[] = [];
  let historyLeadId = '';
  for (let start = 0; start < leads; start += batch) {
    const rows: unknown[][] = [];
    for (let i = start; i < Math.min(leads, start + batch); i++) rows.push(leadRow(org, i, at));
    if (start === 0) historyLeadId = rows[0]![1] as string;
    for (let k = 0; k < rows.length; k += Math.max(1, Math.floor(rows.length / 20))) {
      sampleLeadIds.push(rows[k]![1] as string);
      samplePhones.push(rows[k]![4] as string);
    }
    await writer.write('leads', LEAD_COLUMNS, rows);
    if (start % 200_000 === 0) log(`  leads ${start}/${leads}`);
  }
  for (let start = 0; start < historyMessages; start += batch) {
    const rows: unknown[][] = [];
    for (let i = start; i < Math.min(historyMessages, start + batch); i++)
      rows.push(messageRow(org, historyLeadId, i, at));
    await writer.write('messages', MESSAGE_COLUMNS, rows);
  }
  await writer.close();
  return {
    key: issued.key,
    organizationId: org,
    historyLeadId,
    sampleLeadIds,
    samplePhones,
    seconds: (Date.now() - started) / 1000,
  };
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/.*\//, ''));
if (isMain) {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' },
      leads: { type: 'string', default: '10000' },
      messages: { type: 'string', default: '100' },
    },
  });
  if (!values.db) throw new Error('--db sqlite:<path> | postgres://... is required');
  const r = await seed(values.db, Number(values.leads), Number(values.messages), console.log);
  console.log(`seeded ${values.leads} leads and ${values.messages} history messages in ${r.seconds.toFixed(1)} s`);
  console.log(`history lead: ${r.historyLeadId}`);
  console.log(r.key);
}
