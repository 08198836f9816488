import { expect, it } from 'vitest';
import { createLead, describeEachDialect } from '../support/harness.js';

const ALWAYS_OPEN = { contactHours: { start: '00:00', end: '00:00' } };

describeEachDialect('switchCustomerProfile with sendMessage', (ctx) => {
  it('schedules the new profile opening message, rendered, after the effective delay', async () => {
    const ts = ctx();
    await ts.acme.patch('/settings', ALWAYS_OPEN);
    expect((await ts.acme.post('/customerProfiles', { name: 'renewals', openingMessage: 'Hi {{firstName}}, about your {{plan}} plan{{missing}}!' })).status).toBe(201);
    const leadId = await createLead(ts.acme, { firstName: 'Ann', additionalInfo: { plan: 'gold' } });
    const before = Date.now();
    const res = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'renewals', sendMessage: true, messageDelayMins: 30 });
    expect(res.body).toEqual({ message: 'Switched profile successfully.', sendMessage: true, messageDelayHours: 0, messageDelayMins: 30 });
    const [msg] = (await ts.acme.get(`/leads/${leadId}/messages`)).body.messages;
    expect(msg).toMatchObject({ content: { text: 'Hi Ann, about your gold plan!' }, status: 'scheduled', owner: 'user', isAiGenerated: true, channel: 'sms' });
    const due = new Date(msg.scheduledTime).getTime() - before;
    expect(due).toBeGreaterThanOrEqual(30 * 60_000 - 1000);
    expect(due).toBeLessThan(30 * 60_000 + 10_000);
  });

  it('sends at once with no delay, through the gate', async () => {
    const ts = ctx();
    await ts.acme.patch('/settings', ALWAYS_OPEN);
    await ts.acme.post('/customerProfiles', { name: 'welcome-now', openingMessage: 'Welcome {{firstName}}' });
    const leadId = await createLead(ts.acme, { firstName: 'Bo' });
    await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'welcome-now', sendMessage: true });
    const end = Date.now() + 10_000;
    let status = '';
    while (Date.now() < end && status !== 'sent') {
      status = (await ts.acme.get(`/leads/${leadId}/messages`)).body.messages[0]?.status ?? '';
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(status).toBe('sent');
  });

  it('does not schedule without sendMessage, and refuses a profile with no opening message without switching', async () => {
    const ts = ctx();
    await ts.acme.post('/customerProfiles', { name: 'silent' });
    const leadId = await createLead(ts.acme);
    await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'default' });
    expect((await ts.acme.get(`/leads/${leadId}/messages`)).body.messages).toHaveLength(0);
    const res = await ts.acme.post(`/leads/${leadId}/switchCustomerProfile`, { profile: 'silent', sendMessage: true });
    expect(res).toMatchObject({ status: 400, body: { message: 'Customer profile silent has no opening message to send' } });
    expect((await ts.acme.get(`/leads/${leadId}`)).body.customerProfile).toBe('default');
  });
}, { PARLEY_WORKER_POLL_MS: '20' });
