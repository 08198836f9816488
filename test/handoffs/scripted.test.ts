import { afterAll, expect, it } from 'vitest';
import { startSmtpSink } from '../support/smtp-sink.js';
import { createLead, describeEachDialect, uniquePhone } from '../support/harness.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';
import { freshOrganization, makeRep } from './support.js';

const smtp = await startSmtpSink();
afterAll(() => smtp.close());

/** With no model configured, the scripted agent hands off and notifies when the organization's command says so. */
describeEachDialect(
  'hand-offs with the scripted agent',
  (ctx) => {
    startEachTestInDaytime(ctx);

    it('"hand off: <reason>" and "notify: <name>" commands raise a hand-off and a notification', async () => {
      const ts = ctx();
      const org = await freshOrganization(ts);
      const rep = await makeRep(ts, org);
      await org.client.patch('/settings', { assignment: { mode: 'roundRobin', pool: [rep.userId] } });
      await org.client.post('/customerProfiles', {
        name: 'scripted-notify',
        questions: ['What is your budget?'],
        notifications: [{ name: 'Budget given', condition: 'the lead states a budget' }],
      });
      const phone = uniquePhone();
      const leadId = await createLead(org.client, { phone, customerProfile: 'scripted-notify', firstName: 'Sol' });

      // Nobody owns the lead yet and the organization has no admin: this rep is the one to tell.
      await org.client.call('PUT', `/leads/${leadId}/owner`, { userId: rep.userId });
      await org.client.post(`/leads/${leadId}/addContext`, { command: 'notify: budget given' });
      await org.client.post('/inbound', { channel: 'sms', from: phone, text: 'About 10k' });
      await ts.runDue();
      expect(smtp.received.filter((m) => m.rcptTo.includes(rep.email))).toHaveLength(1);
      expect(smtp.received.find((m) => m.rcptTo.includes(rep.email))!.headers.get('subject')).toBe(
        'Budget given: Sol Lee',
      );

      await org.client.post(`/leads/${leadId}/addContext`, { command: 'hand off: wants a person' });
      await org.client.post('/inbound', { channel: 'sms', from: phone, text: 'Can I talk to someone?' });
      await ts.runDue();
      const lead = await org.client.get(`/leads/${leadId}`);
      expect(lead.body.isAiOn).toBe(false);
      expect(lead.body.owner).toBe(rep.userId);
      expect((await org.client.get('/handoffs')).body.handoffs[0]).toMatchObject({
        leadId,
        ownerId: rep.userId,
        reason: 'wants a person',
      });
      expect(smtp.received.filter((m) => m.rcptTo.includes(rep.email))).toHaveLength(2);
    });
  },
  { SMTP_URL: smtp.url },
);
