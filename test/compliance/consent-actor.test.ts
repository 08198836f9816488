import { expect, it } from 'vitest';
import { createLead, describeEachDialect, uniquePhone } from '../support/harness.js';
import { scanText } from '../support/scan.js';
import { consoleClient } from '../console/support.js';

/**
 * The consent ledger outlives a lead's erasure, so it holds codes and ids
 * only: an email provider's diagnostic quoting the recipient's address and
 * name is not stored, and the export after the erasure names nobody.
 */
describeEachDialect('the consent ledger keeps no provider free text', (ctx) => {
  it('a bounce whose detail quotes the person leaves no address or name in the ledger once the lead is erased', async () => {
    const ts = ctx();
    const mark = `${Date.now().toString(36)}${ts.dialect}`;
    const email = `bounce.person.${mark}@example.org`;
    const name = `Bounce Person ${mark}`;
    const before = new Date(Date.now() - 60_000).toISOString();
    const id = await createLead(ts.acme, { firstName: 'Bounce', email });
    const detail = `550 5.1.1 <${email}> (${name}): Recipient address rejected: user unknown`;
    expect((await ts.acme.post('/inbound/emailEvents', { event: 'bounce', email, detail })).body).toMatchObject({
      leadId: id,
      action: 'opted_out',
    });
    // A complaint about an address no lead holds is recorded the same way.
    const stranger = `complainer.${mark}@example.org`;
    expect(
      (
        await ts.acme.post('/inbound/emailEvents', {
          event: 'complaint',
          email: stranger,
          detail: `abuse report from ${stranger} (Complaining ${mark})`,
        })
      ).status,
    ).toBe(200);
    const records = (await ts.acme.get(`/leads/${id}/consent`)).body.records as { actor: string }[];
    expect(records.map((r) => r.actor)).toEqual(['email-provider:bounce:hard']);

    expect((await ts.acme.del(`/leads/${id}`)).status).toBe(200);
    const after = new Date(Date.now() + 60_000).toISOString();
    const res = await ts.acme.get(`/consent/export?from=${encodeURIComponent(before)}&to=${encodeURIComponent(after)}`);
    expect(res.status).toBe(200);
    const csv = (res.body as string).toLowerCase();
    expect(csv).toContain(id);
    expect(csv).toContain('email-provider:complaint');
    for (const needle of [email, name, stranger, `Complaining ${mark}`, mark])
      expect(csv, needle).not.toContain(needle.toLowerCase());
    // Nor anywhere else in the database.
    expect(await scanText(ts.server.store.db, ts.dialect, [email, name, stranger, `Complaining ${mark}`])).toEqual([]);
  });
});

describeEachDialect('the consent history names who acted as a person reads it', (ctx) => {
  it("labels a key's action with the key's prefix and name, keeping the actor code as it is", async () => {
    const ts = ctx();
    const id = await createLead(ts.acme, { firstName: 'Kay', phone: uniquePhone() });
    expect((await ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
    const [record] = (await ts.acme.get(`/leads/${id}/consent`)).body.records as {
      actor: string;
      actorLabel: string | null;
    }[];
    const keyId = record!.actor.replace(/^key:/, '');
    const key = await ts.server.store.db
      .selectFrom('api_keys')
      .select(['prefix', 'name'])
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    expect(record!.actorLabel).toBe(`key ${key.prefix}…${key.name ? ` (${key.name})` : ''}`);
    expect(record!.actorLabel).not.toContain(keyId);
  });

  it("labels a console user's action with the user's email, not the session's user id", async () => {
    const ts = ctx();
    const agent = await consoleClient(ts, 'agent');
    const id = await createLead(ts.acme, { firstName: 'Sue', phone: uniquePhone() });
    expect((await agent.call('POST', `/v1/leads/${id}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
    const [record] = (await ts.acme.get(`/leads/${id}/consent`)).body.records as {
      actor: string;
      actorLabel: string | null;
    }[];
    expect(record!.actor).toBe(`key:session:${agent.userId}`);
    expect(record!.actorLabel).toBe(agent.email);
  });
});
