import { describe, expect, it } from 'vitest';
import { outboxFor } from '../support/events.js';
import { uniquePhone, describeEachDialect, type TestServer } from '../support/harness.js';
import { FAST_WEBHOOKS, freshOrg, quietAfterStep, receiverPool, registerEndpoint } from '../support/webhooks.js';
import { csvLine, importCsv, importPhone } from '../imports/support.js';

/** Every lead.created row of the store, by lead. */
async function createdEvents(ts: TestServer, leadIds: readonly string[]) {
  const rows = await ts.server.store.db
    .selectFrom('events')
    .select(['payload', 'organization_id'])
    .where('type', '=', 'lead.created')
    .execute();
  const wanted = new Set(leadIds);
  return rows
    .map((r) => JSON.parse(r.payload) as Record<string, unknown>)
    .filter((e) => wanted.has(e.leadId as string));
}

describeEachDialect(
  'lead.created',
  (ctx) => {
    const receiver = receiverPool();

    describe('POST /v1/leads/create', () => {
      it('writes one lead.created with the lead, in the transaction of the insert; a refused duplicate writes none', async () => {
        const ts = ctx();
        const client = await freshOrg(ts, 'created');
        const phone = uniquePhone();
        const res = await client.post('/leads/create', {
          firstName: 'Ann',
          lastName: 'Lee',
          phone,
          email: 'ann.created@example.com',
          externalLeadId: 'crm-7',
        });
        expect(res.status).toBe(200);
        const id = res.body.id as string;
        const events = await outboxFor(ts, id, 'lead.created');
        expect(events.map((e) => e.data)).toEqual([
          {
            leadId: id,
            externalLeadId: 'crm-7',
            phone,
            email: 'ann.created@example.com',
            firstName: 'Ann',
            lastName: 'Lee',
            profile: 'default',
            createdAt: expect.any(String),
            source: 'api',
          },
        ]);
        const before = (
          await ts.server.store.db.selectFrom('events').select('id').where('type', '=', 'lead.created').execute()
        ).length;
        expect((await client.post('/leads/create', { firstName: 'Dup', phone })).status).toBe(409);
        expect(
          (await ts.server.store.db.selectFrom('events').select('id').where('type', '=', 'lead.created').execute())
            .length,
        ).toBe(before);
      });
    });

    describe('imports', () => {
      it('writes one lead.created per new lead, none for a row that updated an existing lead, and none again on a re-run', async () => {
        const ts = ctx();
        const client = await freshOrg(ts, 'imported');
        const phones = Array.from({ length: 25 }, () => importPhone());
        const existing = await client.post('/leads/create', { firstName: 'Old', phone: phones[0] });
        expect(existing.status).toBe(200);
        const csv = [csvLine(['First Name', 'Phone']), ...phones.map((p, i) => csvLine([`Lead${i}`, p]))].join('\n');
        const done = await importCsv(client, csv, { onDuplicate: 'update' });
        expect(done).toMatchObject({ status: 'completed', created: 24, updated: 1 });
        const leads = await ts.server.store.db
          .selectFrom('leads')
          .select(['id', 'phone'])
          .where('phone', 'in', phones)
          .execute();
        expect(leads).toHaveLength(25);
        const events = await createdEvents(
          ts,
          leads.map((l) => l.id),
        );
        // The API's one for the lead that existed, and one per imported lead.
        expect(events.filter((e) => e.source === 'import')).toHaveLength(24);
        expect(events.filter((e) => e.source === 'api')).toHaveLength(1);
        expect(new Set(events.map((e) => e.leadId)).size).toBe(25);
        expect(events.filter((e) => e.source === 'import').every((e) => e.importId === done.id)).toBe(true);

        const again = await importCsv(client, csv, { onDuplicate: 'skip' });
        expect(again).toMatchObject({ status: 'completed', created: 0 });
        expect(
          await createdEvents(
            ts,
            leads.map((l) => l.id),
          ),
        ).toHaveLength(25);
      });
    });

    describe('webhooks', () => {
      it('the new events are registrable; only an endpoint that lists them receives them', async () => {
        const ts = ctx();
        const client = await freshOrg(ts, 'hooks');
        const listing = await receiver();
        const everything = await receiver();
        const bad = await client.post('/webhooks', { url: listing.url, events: ['lead.created', 'message.bounced'] });
        expect(bad.status).toBe(400);
        await registerEndpoint(client, listing, [
          'lead.created',
          'message.delivered',
          'message.failed',
          'campaign.paused',
          'sendingNumber.unusable',
          'optOut',
        ]);
        await registerEndpoint(client, everything);
        const created = await client.post('/leads/create', { firstName: 'Hook', phone: uniquePhone() });
        const id = created.body.id as string;
        expect((await client.post(`/leads/${id}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
        await ts.runDue();
        expect(listing.acknowledged).toHaveLength(2);
        expect(listing.received.map((d) => d.json.event).sort()).toEqual(['lead.created', 'optOut']);
        expect(listing.received.find((d) => d.json.event === 'lead.created')!.json.data).toMatchObject({
          leadId: id,
          source: 'api',
        });
        // The endpoint registered for every type got the optOut, and never the lead.created written before it.
        await quietAfterStep(ts, everything);
        expect(everything.received.map((d) => d.json.event)).toEqual(['optOut']);
      });
    });
  },
  FAST_WEBHOOKS,
);
