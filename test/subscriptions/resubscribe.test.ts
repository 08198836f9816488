import { expect, it } from 'vitest';
import { expectError } from '../support/assert.js';
import { outboxFor } from '../support/events.js';
import { createLead, describeEachDialect, uniquePhone, type TestServer } from '../support/harness.js';

const INVALID = 'channels must include at least one of: sms, voice, email';
const MISSING = '00000000-0000-7000-8000-000000000000';

/** An SMS opt-out the lead made by texting STOP, written the way the inbound-keyword path records it. */
async function keywordOptOut(ts: TestServer, leadId: string, channels: ('sms' | 'voice')[] = ['sms']): Promise<void> {
  const patch: Record<string, string> = {};
  for (const c of channels)
    Object.assign(patch, { [`${c}_status`]: 'unsubscribed', [`${c}_opt_out_source`]: 'keyword' });
  await ts.server.store.db.updateTable('leads').set(patch).where('id', '=', leadId).execute();
}

describeEachDialect('POST /leads/{id}/resubscribe', (ctx) => {
  it('resubscribes every reachable channel when channels is omitted, with the contract-style answer', async () => {
    const { acme } = ctx();
    const id = await createLead(acme, { email: 'r1@example.com' });
    await acme.post(`/leads/${id}/unsubscribe`, {});
    const res = await acme.post(`/leads/${id}/resubscribe`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Lead resubscribed successfully.', channels: ['sms', 'voice', 'email'] });
    const lead = (await acme.get(`/leads/${id}`)).body;
    expect(lead.subscriptions).toEqual({ sms: 'subscribed', voice: 'subscribed', email: 'subscribed' });
    expect(lead.isUnsubscribed).toBe(false);
  });

  it('treats an omitted body, zero bytes with a JSON content type, and {} alike', async () => {
    const { acme } = ctx();
    for (const send of [
      (id: string) => acme.call('POST', `/leads/${id}/resubscribe`),
      (id: string) => acme.call('POST', `/leads/${id}/resubscribe`, '', { 'content-type': 'application/json' }),
      (id: string) => acme.post(`/leads/${id}/resubscribe`, {}),
    ]) {
      const id = await createLead(acme);
      await acme.post(`/leads/${id}/unsubscribe`, {});
      const res = await send(id);
      expect(res.status).toBe(200);
      expect(res.body.channels).toEqual(['sms', 'voice']);
    }
  });

  it.each([
    ['malformed JSON', '{"channels": ['],
    ['a non-object body', '["sms"]'],
    ['null', 'null'],
    ['channels not an array', '{"channels":"sms"}'],
    ['an empty array', '{"channels":[]}'],
    ['an unknown channel', '{"channels":["sms","fax"]}'],
    ['a non-string item', '{"channels":[1]}'],
  ])('rejects %s with the same text as unsubscribe and changes nothing', async (_name, body) => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    await ts.acme.post(`/leads/${id}/unsubscribe`, {});
    const res = await ts.acme.call('POST', `/leads/${id}/resubscribe`, body, { 'content-type': 'application/json' });
    expectError(res, 400, INVALID);
    expect((await ts.acme.get(`/leads/${id}`)).body.subscriptions.sms).toBe('unsubscribed');
    expect(await outboxFor(ts, id, 'resubscribed')).toHaveLength(0);
  });

  it('applies only requested reachable channels; none reachable is "Lead has no email" / "Lead has no phone"', async () => {
    const { acme } = ctx();
    const id = await createLead(acme);
    await acme.post(`/leads/${id}/unsubscribe`, {});
    const res = await acme.post(`/leads/${id}/resubscribe`, { channels: ['email', 'voice', 'voice'] });
    expect(res.body).toEqual({ message: 'Lead resubscribed successfully.', channels: ['voice'] });
    expect((await acme.get(`/leads/${id}`)).body.subscriptions).toEqual({
      sms: 'unsubscribed',
      voice: 'subscribed',
      email: 'unavailable',
    });
    expectError(await acme.post(`/leads/${id}/resubscribe`, { channels: ['email'] }), 400, 'Lead has no email');
    const emailOnly = await createLead(acme, { phone: undefined, email: 'r2@example.com' });
    expectError(await acme.post(`/leads/${emailOnly}/resubscribe`, { channels: ['sms'] }), 400, 'Lead has no phone');
  });

  it("emits one 'resubscribed' event per channel that changed, none for repeats", async () => {
    const ts = ctx();
    const phone = uniquePhone();
    const id = await createLead(ts.acme, { phone, email: 'r3@example.com', externalLeadId: 'crm-r3' });
    await ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms', 'email'] });
    const first = await ts.acme.post(`/leads/${id}/resubscribe`, {});
    expect(first.body.channels).toEqual(['sms', 'voice', 'email']);
    const again = await ts.acme.post(`/leads/${id}/resubscribe`, {});
    expect(again.status).toBe(200);
    expect(again.body.channels).toEqual(['sms', 'voice', 'email']);
    const events = await outboxFor(ts, id, 'resubscribed');
    expect(events.map((e) => e.data.channel)).toEqual(['sms', 'email']);
    expect(events[0]!.data).toEqual({
      leadId: id,
      externalLeadId: 'crm-r3',
      phone,
      email: 'r3@example.com',
      channel: 'sms',
      source: 'api',
    });
  });

  it('turns the AI back on, as the hosted service documents; a refused resubscribe leaves it off', async () => {
    const { acme } = ctx();
    const id = await createLead(acme);
    await acme.post(`/leads/${id}/turnOffAi`);
    await acme.post(`/leads/${id}/unsubscribe`, {});
    expect((await acme.post(`/leads/${id}/resubscribe`, {})).status).toBe(200);
    expect((await acme.get(`/leads/${id}`)).body.isAiOn).toBe(true);
    const stopped = await createLead(acme);
    await acme.post(`/leads/${stopped}/turnOffAi`);
    await acme.post('/inbound', {
      channel: 'sms',
      from: (await acme.get(`/leads/${stopped}`)).body.phone,
      text: 'STOP',
    });
    expect((await acme.post(`/leads/${stopped}/resubscribe`)).status).toBe(409);
    expect((await acme.get(`/leads/${stopped}`)).body.isAiOn).toBe(false);
  });

  it('refuses (409) to lift an SMS opt-out made by a STOP keyword, and changes nothing', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme, { email: 'r4@example.com' });
    await ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['voice', 'email'] });
    await keywordOptOut(ts, id);
    const before = (await ts.acme.get(`/leads/${id}`)).body;
    for (const body of [{}, { channels: ['sms'] }, { channels: ['sms', 'email'] }]) {
      const res = await ts.acme.post(`/leads/${id}/resubscribe`, body);
      expectError(
        res,
        409,
        'The lead opted out of sms by replying with a STOP keyword; only the lead can opt back in, by texting START',
      );
    }
    expect((await ts.acme.get(`/leads/${id}`)).body).toEqual(before);
    expect(await outboxFor(ts, id, 'resubscribed')).toHaveLength(0);
    // Channels not locked by the keyword can still be resubscribed on their own.
    const voice = await ts.acme.post(`/leads/${id}/resubscribe`, { channels: ['voice', 'email'] });
    expect(voice.body.channels).toEqual(['voice', 'email']);
    expect((await ts.acme.get(`/leads/${id}`)).body.subscriptions).toEqual({
      sms: 'unsubscribed',
      voice: 'subscribed',
      email: 'subscribed',
    });
  });

  it('keeps the keyword lock when the number is erased and re-imported', async () => {
    const ts = ctx();
    const phone = uniquePhone();
    const id = await createLead(ts.acme, { phone });
    await ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms'] });
    // The suppression left behind is the keyword one.
    await ts.server.store.db
      .updateTable('suppressions')
      .set({ source: 'keyword' })
      .where('channel', '=', 'sms')
      .where('address_digest', '=', ts.server.deps.digests.keyed(phone))
      .execute();
    await keywordOptOut(ts, id);
    await ts.acme.del(`/leads/${id}`);
    const again = await createLead(ts.acme, { phone });
    expect((await ts.acme.get(`/leads/${again}`)).body.subscriptions.sms).toBe('unsubscribed');
    expect((await ts.acme.post(`/leads/${again}/resubscribe`, { channels: ['sms'] })).status).toBe(409);
  });

  it('forgets an API opt-out once resubscribed: a re-import of the number is subscribed', async () => {
    const { acme } = ctx();
    const phone = uniquePhone();
    const id = await createLead(acme, { phone });
    await acme.post(`/leads/${id}/unsubscribe`, {});
    await acme.post(`/leads/${id}/resubscribe`, {});
    await acme.del(`/leads/${id}`);
    const again = await createLead(acme, { phone });
    expect((await acme.get(`/leads/${again}`)).body.subscriptions).toEqual({
      sms: 'subscribed',
      voice: 'subscribed',
      email: 'unavailable',
    });
  });

  it('couples sms and voice when the organization setting says so', async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(['settings:write', 'leads:write', 'leads:read'], 'coupled-resub');
    await org.patch('/settings', { smsVoiceOptOutCoupled: true });
    const id = await createLead(org);
    await org.post(`/leads/${id}/unsubscribe`, {});
    const res = await org.post(`/leads/${id}/resubscribe`, { channels: ['sms'] });
    expect(res.body).toEqual({ message: 'Lead resubscribed successfully.', channels: ['sms', 'voice'] });
    expect((await outboxFor(ts, id, 'resubscribed')).map((e) => e.data.channel)).toEqual(['sms', 'call']);
    // Coupled, a voice request reaches the keyword-locked sms too: refused.
    const locked = await createLead(org);
    await keywordOptOut(ts, locked, ['sms', 'voice']);
    expect((await org.post(`/leads/${locked}/resubscribe`, { channels: ['voice'] })).status).toBe(409);
    // Uncoupled (acme default): voice alone.
    const other = await createLead(ts.acme);
    await ts.acme.post(`/leads/${other}/unsubscribe`, {});
    expect((await ts.acme.post(`/leads/${other}/resubscribe`, { channels: ['voice'] })).body.channels).toEqual([
      'voice',
    ]);
  });

  it("404s an unknown lead and another organization's lead with the contract text", async () => {
    const { acme, beta } = ctx();
    expectError(
      await acme.post(`/leads/${MISSING}/resubscribe`, {}),
      404,
      `Resource not found: Lead with id ${MISSING}`,
    );
    const id = await createLead(acme);
    await acme.post(`/leads/${id}/unsubscribe`, {});
    expectError(await beta.post(`/leads/${id}/resubscribe`, {}), 404, `Resource not found: Lead with id ${id}`);
    expect((await acme.get(`/leads/${id}`)).body.subscriptions.sms).toBe('unsubscribed');
  });
});
