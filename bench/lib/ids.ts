import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';

/** Lead ids of the organization in id order, straight from the store (bench setup only). */
export async function leadIds(databaseUrl: string, organizationId: string, limit: number): Promise<string[]> {
  if (databaseUrl.startsWith('sqlite:')) {
    const db = new SqliteDatabase(databaseUrl.slice(7), { readonly: true });
    const rows = db
      .prepare('select id from leads where organization_id = ? order by id limit ?')
      .all(organizationId, limit) as { id: string }[];
    db.close();
    return rows.map((r) => r.id);
  }
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  const res = await c.query('select id from leads where organization_id = $1 order by id limit $2', [
    organizationId,
    limit,
  ]);
  await c.end();
  return res.rows.map((r: { id: string }) => r.id);
}
