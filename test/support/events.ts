import type { TestServer } from './harness.js';

/** Outbox rows for one lead, oldest first (read straight from the store the server writes). */
export async function outboxFor(ts: TestServer, leadId: string, type?: string) {
  let q = ts.server.store.db.selectFrom('events').selectAll().orderBy('id');
  if (type) q = q.where('type', '=', type);
  const rows = await q.execute();
  return rows
    .map((r) => ({ ...r, data: JSON.parse(r.payload) as Record<string, unknown> }))
    .filter((r) => r.data.leadId === leadId);
}
