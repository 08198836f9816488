import { expect, it } from 'vitest';
import { LATE_NIGHT, useRealisticHours } from '../support/clock-hours.js';
import { createLead, describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { outboxFor } from '../support/events.js';

/**
 * Keyword replies are compliance messages: they must go out at once, also outside contact hours.
 * The suites that check them keep realistic hours (08:00-21:00) and put the server's clock at 23:00
 * where the lead is, instead of opening the window around the clock.
 */
async function lateAtNight(ts: TestServer, client: Client = ts.acme): Promise<void> {
  await useRealisticHours(client);
  ts.clock.set(LATE_NIGHT);
}

async function inbound(client: Client, body: Record<string, unknown>) {
  const res = await client.post('/inbound', body);
  expect(res.status).toBe(200);
  return res.body as { message: string; leadId: string | null; messageId: string | null; action: string };
}

async function messages(client: Client, leadId: string) {
  return (await client.get(`/leads/${leadId}/messages`)).body.messages as {
    content: { text: string };
    direction: string;
    status: string;
    statusReason: string | null;
  }[];
}

async function lead(ts: TestServer, fields: Record<string, unknown> = {}) {
  const phone = uniquePhone();
  const id = await createLead(ts.acme, { phone, ...fields });
  return { id, phone };
}

describeEachDialect(
  'inbound messages',
  (ctx) => {
    it('stores the message, sets hasReplied and emits message.received', async () => {
      const ts = ctx();
      const { id, phone } = await lead(ts);
      const r = await inbound(ts.acme, { channel: 'sms', from: phone, text: 'Sounds good, tell me more' });
      expect(r).toMatchObject({ message: 'Inbound message received.', leadId: id, action: 'conversation' });
      const [m] = await messages(ts.acme, id);
      expect(m).toMatchObject({
        content: { text: 'Sounds good, tell me more' },
        direction: 'inbound',
        status: 'received',
        owner: 'lead',
      });
      const l = (await ts.acme.get(`/leads/${id}`)).body;
      expect(l.hasReplied).toBe(true);
      expect(l.lastActivityAt).not.toBeNull();
      const ev = await outboxFor(ts, id, 'message.received');
      expect(ev).toHaveLength(1);
      expect(ev[0]!.data).toMatchObject({
        messageId: r.messageId,
        channel: 'sms',
        text: 'Sounds good, tell me more',
        from: phone,
      });
    });

    it('records an unknown sender against the organization, invents no lead and answers nothing', async () => {
      const ts = ctx();
      const before = (await ts.acme.get('/leads?limit=1000')).body.leads.length;
      const r = await inbound(ts.acme, { channel: 'sms', from: uniquePhone(), text: 'who is this?' });
      expect(r).toEqual({ message: 'Inbound message received.', leadId: null, messageId: null, action: 'unmatched' });
      expect((await ts.acme.get('/leads?limit=1000')).body.leads.length).toBe(before);
      const rows = await ts.server.store.db
        .selectFrom('unmatched_inbound')
        .selectAll()
        .where('text', '=', 'who is this?')
        .execute();
      expect(rows).toHaveLength(1);
      expect(
        await ts.server.store.db.selectFrom('jobs').selectAll().where('payload', 'like', '%who is this%').execute(),
      ).toHaveLength(0);
    });

    it.each([
      'STOP',
      ' stop ',
      'Stop!',
      'unsubscribe',
      'Cancel',
      'END',
      'quit',
      'REVOKE',
      'optout',
      'Stop please',
      'STOP STOP',
      'stop?',
      'Opt out',
      'BAJA',
    ])('"%s" at 23:00 unsubscribes sms with source keyword and sends one confirmation at once', async (word) => {
      const ts = ctx();
      await lateAtNight(ts);
      const { id, phone } = await lead(ts);
      expect((await inbound(ts.acme, { channel: 'sms', from: phone, text: word })).action).toBe('opted_out');
      expect((await inbound(ts.acme, { channel: 'sms', from: phone, text: word })).action).toBe('opted_out');
      const l = (await ts.acme.get(`/leads/${id}`)).body;
      expect(l.subscriptions).toMatchObject({ sms: 'unsubscribed', voice: 'subscribed' });
      const events = await outboxFor(ts, id, 'optOut');
      expect(events).toHaveLength(1);
      expect(events[0]!.data).toMatchObject({
        channel: 'sms',
        source: 'keyword',
        optOutMessage: word,
        isDoNotContact: false,
      });
      await ts.runDue();
      const outbound = await messages(ts.acme, id);
      expect(outbound.filter((m) => m.direction === 'outbound').map((m) => m.status)).toEqual(['sent']);
      // In the language of the opt-out (settings.stopConfirmation): BAJA is Spanish.
      expect(outbound.find((m) => m.direction === 'outbound')!.content.text).toMatch(
        word === 'BAJA' ? /dado de baja/ : /unsubscribed/,
      );
      const res = await ts.acme.post(`/leads/${id}/resubscribe`, { channels: ['sms'] });
      expect(res.status).toBe(409);
    });

    it('"STOPALL" and "STOP ALL" stop every channel the lead can receive, with one confirmation by text', async () => {
      const ts = ctx();
      for (const word of ['STOPALL', 'stop all']) {
        const { id, phone } = await lead(ts, { email: `all${Math.random().toString(36).slice(2, 8)}@example.com` });
        expect((await inbound(ts.acme, { channel: 'sms', from: phone, text: word })).action).toBe('opted_out');
        expect((await ts.acme.get(`/leads/${id}`)).body.subscriptions).toEqual({
          sms: 'unsubscribed',
          voice: 'unsubscribed',
          email: 'unsubscribed',
        });
        expect((await outboxFor(ts, id, 'optOut')).map((e) => [e.data.channel, e.data.source])).toEqual([
          ['sms', 'keyword'],
          ['call', 'keyword'],
          ['email', 'keyword'],
        ]);
      }
    });

    it('couples voice to a STOP when the organization couples them', async () => {
      const ts = ctx();
      const org = await ts.clientWithScopes(
        ['settings:write', 'leads:write', 'leads:read', 'inbound:write'],
        'coupled-inbound',
      );
      await org.patch('/settings', { smsVoiceOptOutCoupled: true });
      const phone = uniquePhone();
      const id = await createLead(org, { phone });
      await inbound(org, { channel: 'sms', from: phone, text: 'STOP' });
      expect((await org.get(`/leads/${id}`)).body.subscriptions).toMatchObject({
        sms: 'unsubscribed',
        voice: 'unsubscribed',
      });
    });

    it.each(['START', 'yes', 'Unstop'])(
      '"%s" after STOP resubscribes sms (the lead lifts its own keyword opt-out)',
      async (word) => {
        const ts = ctx();
        await lateAtNight(ts);
        const { id, phone } = await lead(ts);
        await inbound(ts.acme, { channel: 'sms', from: phone, text: 'STOP' });
        expect((await inbound(ts.acme, { channel: 'sms', from: phone, text: word })).action).toBe('resubscribed');
        expect((await ts.acme.get(`/leads/${id}`)).body.subscriptions.sms).toBe('subscribed');
        expect((await outboxFor(ts, id, 'resubscribed')).map((e) => e.data.source)).toEqual(['keyword']);
      },
    );

    it('"yes" from a subscribed lead is an ordinary answer', async () => {
      const ts = ctx();
      const { phone } = await lead(ts);
      expect((await inbound(ts.acme, { channel: 'sms', from: phone, text: 'Yes' })).action).toBe('conversation');
    });

    it.each(['help', 'INFO'])(
      '"%s" at 23:00 answers at once with the organization help text, even with the AI off',
      async (word) => {
        const ts = ctx();
        const org = await ts.clientWithScopes(
          ['settings:write', 'leads:write', 'leads:read', 'messages:write', 'inbound:write'],
          'help-org',
        );
        await lateAtNight(ts, org);
        expect((await org.patch('/settings', { helpText: 'Acme Realty: reply STOP to opt out.' })).status).toBe(200);
        const phone = uniquePhone();
        const id = await createLead(org, { phone });
        expect((await org.post(`/leads/${id}/turnOffAi`)).status).toBe(200);
        expect((await inbound(org, { channel: 'sms', from: phone, text: word })).action).toBe('help');
        await ts.runDue();
        const ms = await messages(org, id);
        expect(ms.filter((m) => m.direction === 'outbound')).toMatchObject([
          { content: { text: 'Acme Realty: reply STOP to opt out.' }, status: 'sent' },
        ]);
      },
    );

    it("answers a Spanish STOP with the organization's own Spanish confirmation", async () => {
      const ts = ctx();
      const org = await ts.clientWithScopes(
        ['settings:write', 'leads:write', 'leads:read', 'messages:write', 'inbound:write'],
        'stop-text-org',
      );
      await lateAtNight(ts, org);
      const es = 'Acme Realty: no le escribiremos más. Responda ALTA para volver.';
      expect((await org.patch('/settings', { stopConfirmation: { es } })).status).toBe(200);
      const phone = uniquePhone();
      const id = await createLead(org, { phone });
      expect((await inbound(org, { channel: 'sms', from: phone, text: 'BAJA' })).action).toBe('opted_out');
      await ts.runDue();
      expect((await messages(org, id)).filter((m) => m.direction === 'outbound')).toMatchObject([
        { content: { text: es }, status: 'sent' },
      ]);
    });

    it.each([
      ['please stop texting me', ['sms']],
      ["Don't call me", ['voice']],
      ['stop emailing me', ['email']],
      ['Please stop contacting me', ['sms', 'voice', 'email']],
      ['unsubscribe me please', ['email']],
    ])('plain language "%s" unsubscribes %j', async (text, expected) => {
      const ts = ctx();
      const email = `p${Math.random().toString(36).slice(2, 8)}@example.com`;
      const { id, phone } = await lead(ts, { email });
      const channel = text.startsWith('unsubscribe') ? 'email' : 'sms';
      const r = await inbound(ts.acme, { channel, from: channel === 'email' ? email.toUpperCase() : phone, text });
      expect(r.action).toBe('opted_out');
      const events = await outboxFor(ts, id, 'optOut');
      // Webhooks spell voice `call` (docs.apten.ai/webhooks/opt-out).
      expect(events.map((e) => e.data.channel)).toEqual(expected.map((c) => (c === 'voice' ? 'call' : c)));
      // "unsubscribe me please" is the revocation word with politeness around it: a keyword, not plain language.
      const source = text.startsWith('unsubscribe') ? 'keyword' : 'message';
      expect(
        events.every(
          (e) => e.data.source === source && e.data.optOutMessage === text && e.data.isDoNotContact === false,
        ),
      ).toBe(true);
    });

    it('"never contact me" adds the phone to DNC, then one optOut per channel with isDoNotContact', async () => {
      const ts = ctx();
      const { id, phone } = await lead(ts, { email: `n${Math.random().toString(36).slice(2, 8)}@example.com` });
      expect((await inbound(ts.acme, { channel: 'sms', from: phone, text: 'Never contact me again.' })).action).toBe(
        'do_not_contact',
      );
      const all = await outboxFor(ts, id);
      // (The first reply also tags the lead hasReplied: docs.apten.ai/webhooks/lead-tagged.)
      const types = all
        .map((e) => e.type)
        .filter((t) => t !== 'message.received' && t !== 'leadTagged' && t !== 'lead.created');
      expect(types).toEqual(['doNotContact', 'optOut', 'optOut', 'optOut']);
      expect(all.filter((e) => e.type === 'optOut').every((e) => e.data.isDoNotContact === true)).toBe(true);
      expect((await ts.acme.get(`/dnc/check?phone=${encodeURIComponent(phone)}`)).body.isDoNotContact).toBe(true);
    });

    it('a plain STOP from an address no lead holds keeps its stronger Do Not Contact opt-out: START does not lift it', async () => {
      const ts = ctx();
      const phone = uniquePhone();
      const said = async (text: string) => (await inbound(ts.acme, { channel: 'sms', from: phone, text })).action;
      expect(await said('Never contact me again.')).toBe('unmatched');
      expect(await said('STOP')).toBe('unmatched');
      const id = await createLead(ts.acme, { phone });
      expect((await ts.acme.get(`/leads/${id}`)).body.subscriptions).toMatchObject({ sms: 'unsubscribed' });
      await said('START');
      expect((await ts.acme.get(`/leads/${id}`)).body.subscriptions).toMatchObject({ sms: 'unsubscribed' });
    });

    it('"stop calling me", then a DNC request, then the DNC entry removed: the calls stay stopped', async () => {
      const ts = ctx();
      const { id, phone } = await lead(ts, {});
      const said = async (channel: 'sms' | 'voice', text: string) =>
        (await inbound(ts.acme, { channel, from: phone, text })).action;
      expect(await said('voice', 'Stop calling me.')).toBe('opted_out');
      expect(await said('sms', 'Never contact me again.')).toBe('do_not_contact');
      expect((await ts.acme.post('/dnc/remove', { phone })).status).toBe(200);
      // Removing the entry lifts what the DNC request stopped (the texts), not the spoken opt-out nothing lifts.
      expect((await ts.acme.get(`/leads/${id}`)).body.subscriptions).toMatchObject({
        sms: 'subscribed',
        voice: 'unsubscribed',
      });
    });

    it('validates the body and requires messages:write', async () => {
      const ts = ctx();
      expect((await ts.acme.post('/inbound', { channel: 'fax', from: 'x', text: 'y' })).status).toBe(400);
      expect((await ts.acme.post('/inbound', { channel: 'sms', from: 'not a phone', text: 'y' })).body.message).toBe(
        'from is not a valid phone number',
      );
      const reader = await ts.clientWithScopes(['leads:read']);
      expect((await reader.post('/inbound', { channel: 'sms', from: uniquePhone(), text: 'y' })).status).toBe(403);
    });
  },
  { PARLEY_WORKER_POLL_MS: '20' },
);
