/**
 * How fast GET /v1/leads answers the console's searches and orders on a large
 * organization (docs/console.md). Not part of `npm run bench`: run it by hand.
 *
 *   node --import tsx bench/console-search.ts --db sqlite:/tmp/parley-1m.db --leads 1000000
 *   node --import tsx bench/console-search.ts --db postgres://postgres@127.0.0.1:5432/parley_1m --leads 1000000
 *
 * `--talking N` gives every Nth lead a conversation (an AI message, and on
 * every other one the lead's reply) and a last activity, so lastMessage and
 * needsAttention have messages to find; without it only one lead has any.
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { v7 } from 'uuid';
import { loadConfig } from '../src/platform/config.js';
import { startServer } from '../src/server.js';
import { phoneOf, seed } from './seed.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    leads: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '20' },
    talking: { type: 'string', default: '0' },
  },
});
const databaseUrl = values.db!;
const leads = Number(values.leads);
const runs = Number(values.runs);
const talking = Number(values.talking);

const seeded = await seed(databaseUrl, leads, 100, (s) => console.error(s));
console.error(`seeded ${leads} leads in ${seeded.seconds.toFixed(1)} s`);
const server = await startServer(
  loadConfig({
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    PARLEY_WORKER: 'false',
    PARLEY_RATE_LIMIT: '0',
  }),
);

if (talking > 0) {
  const db = server.store.db;
  const ids = (
    await db
      .selectFrom('leads')
      .select('id')
      .where('organization_id', '=', seeded.organizationId)
      .orderBy('id')
      .execute()
  ).map((r) => r.id);
  const chosen = ids.filter((_, i) => i % talking === talking - 1);
  const base = Date.now() - chosen.length * 1000;
  for (let start = 0; start < chosen.length; start += 500) {
    const batch = chosen.slice(start, start + 500);
    const rows = batch.flatMap((leadId, k) => {
      const i = start + k;
      const at = new Date(base + i * 1000).toISOString();
      const common = {
        organization_id: seeded.organizationId,
        lead_id: leadId,
        channel: 'sms' as const,
        status_reason: null,
        scheduled_at: null,
        created_at: at,
      };
      const opening = {
        ...common,
        id: v7(),
        direction: 'outbound' as const,
        owner: 'user' as const,
        text: `Hi Lead, this is bench ${i}`,
        is_ai_generated: 1 as const,
        status: 'delivered',
      };
      const reply = {
        ...common,
        id: v7(),
        direction: 'inbound' as const,
        owner: 'lead' as const,
        text: `Sure, call me ${i}`,
        is_ai_generated: 0 as const,
        status: 'received',
      };
      return i % 2 === 0 ? [opening, reply] : [opening];
    });
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('messages').values(rows).execute();
      for (const [k, leadId] of batch.entries()) {
        await trx
          .updateTable('leads')
          .set({ last_activity_at: new Date(base + (start + k) * 1000).toISOString() })
          .where('organization_id', '=', seeded.organizationId)
          .where('id', '=', leadId)
          .execute();
      }
    });
  }
  console.error(`${chosen.length} leads in a conversation`);
}

// A bulk load is analysed by autovacuum within a minute or so; measure with the statistics a running database has.
if (server.store.dialect === 'postgres') await sql`analyze`.execute(server.store.db);

const mid = Math.floor(leads / 2);
const queries: [string, string][] = [
  ['inbox: sort=lastActivity', 'sort=lastActivity&limit=100'],
  ['inbox: needsAttention, first page', 'sort=lastActivity&needsAttention=true&limit=100'],
  ['name prefix, unique (Lead123456)', `search=lead${mid}&limit=100`],
  ['name prefix, 11 hits (Lead12345)', `search=lead${Math.floor(mid / 10)}&limit=100`],
  ['name prefix, ~1% of leads', `search=lead${String(mid).slice(0, 2)}&limit=100`],
  ['two words (first + last prefix)', `search=lead${mid}%20ben&limit=100`],
  ['whole phone', `search=${encodeURIComponent(phoneOf(mid))}&limit=100`],
  ['phone prefix (national digits)', `search=${phoneOf(mid).slice(2, 9)}&limit=100`],
  ['email prefix', `search=lead${mid - (mid % 3)}%40ex&limit=100`],
  ['externalLeadId', `search=crm-${mid}&limit=100`],
  ['no hit', 'search=zzzz&limit=100'],
  ['prefix every lead matches (lead)', 'search=lead&limit=100'],
  ['aiOn=false (none match: full scan)', 'aiOn=false&limit=100'],
  ['needsAttention=true, oldest first', 'needsAttention=true&limit=100'],
  ['needsAttention=false, newest activity first', 'sort=lastActivity&needsAttention=false&limit=100'],
  ['plain listing (unchanged path)', 'limit=100'],
];

console.log(
  `| query (${leads} leads${talking > 0 ? `, every ${talking}th talking` : ''}, ${server.store.dialect}) | hits | p50 ms | max ms |`,
);
console.log('|---|---:|---:|---:|');
for (const [label, query] of queries) {
  const times: number[] = [];
  let hits = 0;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const res = await fetch(`${server.address}/v1/leads?${query}`, { headers: { 'x-api-key': seeded.key } });
    const body = (await res.json()) as { leads?: unknown[] };
    times.push(performance.now() - start);
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(body)}`);
    hits = body.leads!.length;
  }
  times.sort((a, b) => a - b);
  console.log(`| ${label} | ${hits} | ${times[Math.floor(runs / 2)]!.toFixed(1)} | ${times[runs - 1]!.toFixed(1)} |`);
}
await server.stop();
