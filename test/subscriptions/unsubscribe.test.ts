import { expect, it } from 'vitest';
import { createLead, describeEachDialect, uniquePhone } from '../support/harness.js';
import { outboxFor } from '../support/events.js';

const INVALID = 'channels must include at least one of: sms, voice, email';

describeEachDialect('POST /leads/{id}/unsubscribe', (ctx) => {
  it('without channels unsubscribes every channel the lead can receive (phone only: sms, voice)', async () => {
    const { acme } = ctx();
    const id = await createLead(acme);
    const res = await acme.post(`/leads/${id}/unsubscribe`, {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Lead unsubscribed successfully.', channels: ['sms', 'voice'] });
    const lead = (await acme.get(`/leads/${id}`)).body;
    expect(lead.subscriptions).toEqual({ sms: 'unsubscribed', voice: 'unsubscribed', email: 'unavailable' });
    expect(lead.isUnsubscribed).toBe(true);
  });

  it('treats an omitted body, zero bytes with a JSON content type, and {} alike', async () => {
    const { acme } = ctx();
    for (const send of [
      (id: string) => acme.call('POST', `/leads/${id}/unsubscribe`),
      (id: string) => acme.call('POST', `/leads/${id}/unsubscribe`, '', { 'content-type': 'application/json' }),
      (id: string) => acme.post(`/leads/${id}/unsubscribe`, {}),
    ]) {
      const id = await createLead(acme, { email: 'a@example.com' });
      const res = await send(id);
      expect(res.status).toBe(200);
      expect(res.body.channels).toEqual(['sms', 'voice', 'email']);
    }
  });

  it('applies only the requested reachable channels, in sms, voice, email order, duplicates once', async () => {
    const { acme } = ctx();
    const id = await createLead(acme, { email: 'b@example.com' });
    const res = await acme.post(`/leads/${id}/unsubscribe`, { channels: ['email', 'sms', 'email'] });
    expect(res.body).toEqual({ message: 'Lead unsubscribed successfully.', channels: ['sms', 'email'] });
    const lead = (await acme.get(`/leads/${id}`)).body;
    expect(lead.subscriptions).toEqual({ sms: 'unsubscribed', voice: 'subscribed', email: 'unsubscribed' });
    expect(lead.isUnsubscribed).toBe(false);
  });

  it('omits channels the lead cannot receive when at least one requested channel is reachable', async () => {
    const { acme } = ctx();
    const id = await createLead(acme);
    const res = await acme.post(`/leads/${id}/unsubscribe`, { channels: ['voice', 'email'] });
    expect(res.status).toBe(200);
    expect(res.body.channels).toEqual(['voice']);
  });

  it('answers "Lead has no email" / "Lead has no phone" and changes nothing when none is reachable', async () => {
    const { acme } = ctx();
    const phoneOnly = await createLead(acme);
    const r1 = await acme.post(`/leads/${phoneOnly}/unsubscribe`, { channels: ['email'] });
    expect(r1.status).toBe(400);
    expect(r1.body.message).toBe('Lead has no email');
    const emailOnly = await createLead(acme, { phone: undefined, email: 'c@example.com' });
    const r2 = await acme.post(`/leads/${emailOnly}/unsubscribe`, { channels: ['sms', 'voice'] });
    expect(r2.status).toBe(400);
    expect(r2.body.message).toBe('Lead has no phone');
    expect((await acme.get(`/leads/${phoneOnly}`)).body.subscriptions.sms).toBe('subscribed');
    expect((await outboxFor(ctx(), phoneOnly)).filter((e) => e.type !== 'lead.created')).toHaveLength(0);
  });

  it.each([
    ['malformed JSON', '{"channels": ['],
    ['a non-object body', '["sms"]'],
    ['null', 'null'],
    ['channels not an array', '{"channels":"sms"}'],
    ['an empty array', '{"channels":[]}'],
    ['an unknown channel', '{"channels":["sms","fax"]}'],
    ['a non-string item', '{"channels":[1]}'],
  ])('rejects %s with the contract text and changes nothing', async (_name, body) => {
    const { acme } = ctx();
    const id = await createLead(acme);
    const res = await acme.call('POST', `/leads/${id}/unsubscribe`, body, { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(INVALID);
    expect((await acme.get(`/leads/${id}`)).body.subscriptions.sms).toBe('subscribed');
    expect((await outboxFor(ctx(), id)).filter((e) => e.type !== 'lead.created')).toHaveLength(0);
  });

  it('emits one optOut event per channel that changed, none on repeat (requests converge)', async () => {
    const ts = ctx();
    const phone = uniquePhone();
    const id = await createLead(ts.acme, { phone, email: 'd@example.com', externalLeadId: 'crm-1' });
    await ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms'] });
    const again = await ts.acme.post(`/leads/${id}/unsubscribe`, {});
    expect(again.body.channels).toEqual(['sms', 'voice', 'email']);
    const third = await ts.acme.post(`/leads/${id}/unsubscribe`, {});
    expect(third.body.channels).toEqual(['sms', 'voice', 'email']);
    const events = await outboxFor(ts, id, 'optOut');
    // Webhooks spell voice `call` (docs.apten.ai/webhooks/opt-out).
    expect(events.map((e) => e.data.channel)).toEqual(['sms', 'call', 'email']);
    expect(events[0]!.data).toEqual({
      leadId: id,
      externalLeadId: 'crm-1',
      phone,
      email: 'd@example.com',
      channel: 'sms',
      source: 'api',
      optOutMessage: null,
      isDoNotContact: false,
      optOutReason: null,
      isTwilioOptOut: false,
    });
  });

  it('does not touch isAiOn nor the DNC list', async () => {
    const { acme } = ctx();
    const id = await createLead(acme);
    await acme.post(`/leads/${id}/unsubscribe`, {});
    const lead = (await acme.get(`/leads/${id}`)).body;
    expect(lead.isAiOn).toBe(true);
    expect(lead.isDoNotContact).toBe(false);
    const dnc = await acme.get(`/dnc/check?phone=${encodeURIComponent(lead.phone!)}`);
    expect({ status: dnc.status, body: dnc.body }).toEqual({
      status: 200,
      body: { phone: lead.phone, isDoNotContact: false },
    });
  });

  it('couples sms and voice when the organization setting says so', async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(['settings:write', 'leads:write', 'leads:read'], 'coupled-org');
    expect((await org.patch('/settings', { smsVoiceOptOutCoupled: true })).body.smsVoiceOptOutCoupled).toBe(true);
    const id = await createLead(org);
    const res = await org.post(`/leads/${id}/unsubscribe`, { channels: ['voice'] });
    expect(res.body.channels).toEqual(['sms', 'voice']);
    expect((await outboxFor(ts, id, 'optOut')).map((e) => e.data.channel)).toEqual(['sms', 'call']);
    // Uncoupled (acme default): voice alone.
    const other = await createLead(ts.acme);
    expect((await ts.acme.post(`/leads/${other}/unsubscribe`, { channels: ['voice'] })).body.channels).toEqual([
      'voice',
    ]);
  });

  it('404s an unknown lead with the contract text', async () => {
    const res = await ctx().acme.post('/leads/00000000-0000-7000-8000-000000000000/unsubscribe', {});
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Resource not found: Lead with id 00000000-0000-7000-8000-000000000000');
  });

  it('50 concurrent unsubscribes of one lead give exactly one event per channel', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme, { email: 'e@example.com' });
    const results = await Promise.all(Array.from({ length: 50 }, () => ts.acme.post(`/leads/${id}/unsubscribe`, {})));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const events = await outboxFor(ts, id, 'optOut');
    expect(events.map((e) => e.data.channel).sort()).toEqual(['call', 'email', 'sms']);
  });
});
