/**
 * The references every Parley figure is divided by, measured in the same run:
 * a bare Fastify route returning a static object (the HTTP ceiling) and bare
 * routes doing Parley's database work in the fewest statements (the storage
 * ceiling), on the same database file / server, with the same durability.
 *
 *   node --import tsx bench/reference.ts <port> <databaseUrl> <organizationId>
 */
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { v7 } from 'uuid';

const [portArg, databaseUrl, org] = process.argv.slice(2);
if (!portArg || !databaseUrl || !org) throw new Error('usage: reference.ts <port> <databaseUrl> <organizationId>');

interface Store {
  getLead(id: string): Promise<unknown>;
  unsubscribe(id: string): Promise<void>;
}

function sqliteStore(path: string): Store {
  const db = new SqliteDatabase(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  const get = db.prepare('select * from leads where organization_id = ? and id = ?');
  const update = db.prepare(
    "update leads set sms_status = 'unsubscribed', voice_status = 'unsubscribed', updated_at = ? where organization_id = ? and id = ?",
  );
  const insert = db.prepare(
    'insert into events (organization_id, id, type, payload, created_at, dispatched_at) values (?, ?, ?, ?, ?, null)',
  );
  const tx = db.transaction((id: string) => {
    const at = new Date().toISOString();
    update.run(at, org, id);
    insert.run(org, v7(), 'optOut', JSON.stringify({ leadId: id, channel: 'sms' }), at);
    insert.run(org, v7(), 'optOut', JSON.stringify({ leadId: id, channel: 'voice' }), at);
  });
  return { getLead: async (id) => get.get(org, id), unsubscribe: async (id) => void tx.immediate(id) };
}

function postgresStore(url: string): Store {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  return {
    getLead: async (id) =>
      (await pool.query('select * from leads where organization_id = $1 and id = $2', [org, id])).rows[0],
    unsubscribe: async (id) => {
      const c = await pool.connect();
      try {
        const at = new Date().toISOString();
        await c.query('begin');
        await c.query(
          "update leads set sms_status = 'unsubscribed', voice_status = 'unsubscribed', updated_at = $1 where organization_id = $2 and id = $3",
          [at, org, id],
        );
        await c.query(
          "insert into events (organization_id, id, type, payload, created_at) values ($1, $2, 'optOut', $3, $4), ($1, $5, 'optOut', $6, $4)",
          [
            org,
            v7(),
            JSON.stringify({ leadId: id, channel: 'sms' }),
            at,
            v7(),
            JSON.stringify({ leadId: id, channel: 'voice' }),
          ],
        );
        await c.query('commit');
      } finally {
        c.release();
      }
    },
  };
}

const store = databaseUrl.startsWith('sqlite:') ? sqliteStore(databaseUrl.slice(7)) : postgresStore(databaseUrl);
const app = Fastify({ logger: false });
const staticBody = { message: 'ok', ok: true };
app.get('/static', async () => staticBody);
app.get<{ Params: { id: string } }>('/lead/:id', async (req) => store.getLead(req.params.id));
app.post<{ Params: { id: string } }>('/unsubscribe/:id', async (req) => {
  await store.unsubscribe(req.params.id);
  return { message: 'ok' };
});
await app.listen({ port: Number(portArg), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
