import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { findOrganizationByName } from '../../src/organizations/organizations.repository.js';
import { ADDRESS_DIGEST_SECRET } from '../../src/platform/address-digest.js';
import { instanceSecret } from '../../src/platform/secrets.repository.js';
import { describeEachDialect, type Client, type TestServer } from '../support/harness.js';
import { allLeads, importCsv, importPhone } from './support.js';

/**
 * Opt-outs read for a whole batch (suppression-records/suppressions.repository.ts
 * suppressionsForMany): keyed digests always, unkeyed (legacy, pre-0007)
 * digests when the organization has any. A batch of 50 leads or more asks
 * first whether it has any; a smaller one reads them outright. Both sizes, both kinds.
 */
describeEachDialect('imports read the opt-outs of every address in the batch', (ctx) => {
  async function org(ts: TestServer, name: string): Promise<{ client: Client; organizationId: string }> {
    const client = await ts.clientWithScopes(['leads:read', 'leads:write'], name);
    return { client, organizationId: (await findOrganizationByName(ts.server.store.db, name))!.id };
  }

  /** An opt-out as an erased lead of an old version left it: a plain SHA-256 of the address. */
  async function legacyOptOut(
    ts: TestServer,
    organizationId: string,
    channel: 'sms' | 'voice' | 'email',
    address: string,
  ) {
    await ts.server.store.db
      .insertInto('suppressions')
      .values({
        organization_id: organizationId,
        channel,
        address_digest: createHash('sha256').update(address.toLowerCase()).digest('hex'),
        source: 'keyword',
        created_at: new Date().toISOString(),
        digest_kind: 'sha256',
      })
      .execute();
  }

  /** An opt-out of today: unsubscribe through the API, then erase the lead (the opt-out stays with the address). */
  async function keyedOptOut(client: Client, fields: { phone?: string; email?: string }, channels: string[]) {
    const id = (await client.post('/leads/create', { firstName: 'Gone', ...fields })).body.id;
    expect((await client.post(`/leads/${id}/unsubscribe`, { channels })).status).toBe(200);
    expect((await client.del(`/leads/${id}`)).status).toBe(200);
  }

  /**
   * A keyed opt-out exactly as it is stored (docs/contract.md: an HMAC with the instance secret of the trimmed,
   * lowercased address, in hex), written here with node:crypto alone: the rows already in a database must
   * keep matching whatever way the digest is computed (once per key, on another thread).
   */
  async function storedKeyedOptOut(
    ts: TestServer,
    organizationId: string,
    channel: 'sms' | 'voice' | 'email',
    address: string,
  ) {
    const secret = await instanceSecret(ts.server.store.db, ADDRESS_DIGEST_SECRET);
    await ts.server.store.db
      .insertInto('suppressions')
      .values({
        organization_id: organizationId,
        channel,
        address_digest: createHmac('sha256', secret).update(address.trim().toLowerCase(), 'utf8').digest('hex'),
        source: 'keyword',
        created_at: new Date().toISOString(),
        digest_kind: 'hmac',
      })
      .execute();
  }

  it('keyed opt-outs already stored are heard by an import and by a create (their digest format is fixed)', async () => {
    const ts = ctx();
    const { client, organizationId } = await org(ts, 'imp-supp-stored');
    const [imported, created] = [importPhone(), importPhone()];
    const email = `Stored-${process.pid}@Example.com`;
    await storedKeyedOptOut(ts, organizationId, 'sms', imported);
    await storedKeyedOptOut(ts, organizationId, 'email', email);
    await storedKeyedOptOut(ts, organizationId, 'voice', created);
    expect(await importCsv(client, `First Name,Phone,Email\nStored,${imported},${email}\n`)).toMatchObject({
      status: 'completed',
      created: 1,
    });
    const lead = (await allLeads(client)).find((l) => l.phone === imported);
    expect(lead!.subscriptions).toMatchObject({ sms: 'unsubscribed', voice: 'subscribed', email: 'unsubscribed' });
    const id = (await client.post('/leads/create', { firstName: 'Stored', phone: created })).body.id;
    expect((await client.get(`/leads/${id}`)).body.subscriptions).toMatchObject({
      sms: 'subscribed',
      voice: 'unsubscribed',
    });
  });

  for (const rows of [3, 60]) {
    describe(`in a batch of ${rows} leads`, () => {
      it('a legacy phone opt-out and a keyed email opt-out are both heard; the other leads are subscribed', async () => {
        const ts = ctx();
        const { client, organizationId } = await org(ts, `imp-supp-${rows}`);
        const legacyPhone = importPhone();
        const keyedEmail = `keyed-${rows}-${process.pid}@example.com`;
        await legacyOptOut(ts, organizationId, 'sms', legacyPhone);
        await keyedOptOut(client, { email: keyedEmail }, ['email']);
        const others = Array.from({ length: rows - 2 }, () => importPhone());
        const csv = `First Name,Phone,Email\nLegacy,${legacyPhone},\nKeyed,,${keyedEmail.toUpperCase()}\n${others.map((p, i) => `Other${i},${p},`).join('\n')}\n`;
        expect(await importCsv(client, csv)).toMatchObject({ status: 'completed', created: rows, rejected: 0 });
        const leads = await allLeads(client);
        expect(leads.find((l) => l.phone === legacyPhone)!.subscriptions).toMatchObject({
          sms: 'unsubscribed',
          voice: 'subscribed',
        });
        expect(leads.find((l) => l.email === keyedEmail)!.subscriptions).toMatchObject({ email: 'unsubscribed' });
        for (const p of others)
          expect(leads.find((l) => l.phone === p)!.subscriptions).toMatchObject({
            sms: 'subscribed',
            voice: 'subscribed',
          });
      });
    });
  }

  it("an address an import fills in on an existing lead takes that address's opt-out (60 rows, keyed and legacy)", async () => {
    const ts = ctx();
    const { client, organizationId } = await org(ts, 'imp-supp-fill');
    const phones = Array.from({ length: 60 }, () => importPhone());
    // Leads known by email only; the file brings their phones.
    const emails = phones.map((_, i) => `fill-${i}-${process.pid}@example.com`);
    for (let i = 0; i < 3; i++)
      expect((await client.post('/leads/create', { firstName: `F${i}`, email: emails[i] })).status).toBe(200);
    await keyedOptOut(client, { phone: phones[0] }, ['sms', 'voice']);
    await legacyOptOut(ts, organizationId, 'voice', phones[1]!);
    const csv = `First Name,Phone,Email\n${phones.map((p, i) => `F${i},${p},${emails[i]}`).join('\n')}\n`;
    expect(await importCsv(client, csv)).toMatchObject({ status: 'completed', created: 57, updated: 3 });
    const leads = await allLeads(client);
    expect(leads.find((l) => l.email === emails[0])!.subscriptions).toMatchObject({
      sms: 'unsubscribed',
      voice: 'unsubscribed',
      email: 'subscribed',
    });
    expect(leads.find((l) => l.email === emails[1])!.subscriptions).toMatchObject({
      sms: 'subscribed',
      voice: 'unsubscribed',
    });
    expect(leads.find((l) => l.email === emails[2])!.subscriptions).toMatchObject({
      sms: 'subscribed',
      voice: 'subscribed',
    });
  });
});
