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

/** Outbox rows of one type for one organization, oldest first, for events not tied to a lead (e.g. doNotContact). */
export async function outboxOfType(ts: TestServer, type: string, orgName = 'acme') {
  const rows = await ts.server.store.db
    .selectFrom('events')
    .innerJoin('organizations', 'organizations.id', 'events.organization_id')
    .select(['events.id', 'events.type', 'events.payload', 'events.created_at'])
    .where('organizations.name', '=', orgName)
    .where('events.type', '=', type)
    .orderBy('events.id')
    .execute();
  return rows.map((r) => ({ ...r, data: JSON.parse(r.payload) as Record<string, unknown> }));
}

/** Every outbox row of the store, all organizations: "no new event" is this count unchanged after the step. */
export async function eventCount(ts: Pick<TestServer, 'server'>): Promise<number> {
  const row = await ts.server.store.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
