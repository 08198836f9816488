import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';

/** The API's opaque cursor for "after this id" (base64url of the id), built from the row at `offset`. */
export async function cursorAt(
  databaseUrl: string,
  table: 'leads' | 'messages',
  where: Record<string, string>,
  offset: number,
): Promise<string | undefined> {
  const cols = Object.keys(where);
  let id: string | undefined;
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new SqliteDatabase(databaseUrl.slice(7), { readonly: true });
    const sql = `select id from ${table} where ${cols.map((c) => `${c} = ?`).join(' and ')} order by id limit 1 offset ?`;
    id = (db.prepare(sql).get(...Object.values(where), offset) as { id: string } | undefined)?.id;
    db.close();
  } else {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    const sql = `select id from ${table} where ${cols.map((col, i) => `${col} = $${i + 1}`).join(' and ')} order by id limit 1 offset $${cols.length + 1}`;
    id = (await c.query(sql, [...Object.values(where), offset])).rows[0]?.id;
    await c.end();
  }
  return id ? Buffer.from(id, 'utf8').toString('base64url') : undefined;
}
