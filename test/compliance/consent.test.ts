import { expect, it } from 'vitest';
import { expectError } from '../support/assert.js';
import { outboxFor } from '../support/events.js';
import { createLead, describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';

// Realistic hours, judged where the lead is: each test that sends moves the clock to a weekday noon in Los Angeles
// (+1 415 numbers), instead of opening the window around the clock.
const LA_NOON = '2026-06-10T19:00:00Z';

async function inbound(client: Client, body: Record<string, unknown>) {
  const res = await client.post('/inbound', body);
  expect(res.status).toBe(200);
  return res.body as { leadId: string | null; messageId: string | null; action: string };
}

type Msg = {
  id: string;
  content: { text: string };
  direction: string;
  status: string;
  statusCode: string | null;
  statusReason: string | null;
};
const messages = async (client: Client, leadId: string) =>
  (await client.get(`/leads/${leadId}/messages`)).body.messages as Msg[];

async function lead(ts: TestServer, fields: Record<string, unknown> = {}) {
  const phone = uniquePhone();
  const id = await createLead(ts.acme, { phone, ...fields });
  return { id, phone };
}

describeEachDialect('suppression belongs to the address', (ctx) => {
  it('an email opt-out suppresses every lead with that address, now and later, and GET lead says so', async () => {
    const ts = ctx();
    const email = `shared-${Date.now()}@example.com`;
    const first = await lead(ts, { email });
    const second = await lead(ts, { email });
    expect((await ts.acme.post(`/leads/${first.id}/unsubscribe`, { channels: ['email'] })).status).toBe(200);
    expect((await ts.acme.get(`/leads/${second.id}`)).body.subscriptions.email).toBe('unsubscribed');
    expect(await outboxFor(ts, second.id, 'optOut')).toHaveLength(1);
    const later = await lead(ts, { email: email.toUpperCase() });
    expect((await ts.acme.get(`/leads/${later.id}`)).body.subscriptions.email).toBe('unsubscribed');
    // A lead whose email changes to the suppressed address is suppressed on email only.
    const mover = await lead(ts, { email: `other-${Date.now()}@example.com` });
    await ts.acme.patch(`/leads/${mover.id}`, { email });
    expect((await ts.acme.get(`/leads/${mover.id}`)).body.subscriptions).toEqual({
      sms: 'subscribed',
      voice: 'subscribed',
      email: 'unsubscribed',
    });
  });

  it('a phone opted out by STOP stays suppressed when the lead is erased and the number re-created', async () => {
    const ts = ctx();
    const { id, phone } = await lead(ts);
    await inbound(ts.acme, { channel: 'sms', from: phone, text: 'STOP' });
    expect((await ts.acme.del(`/leads/${id}`)).status).toBe(200);
    const again = await createLead(ts.acme, { phone });
    expect((await ts.acme.get(`/leads/${again}`)).body.subscriptions.sms).toBe('unsubscribed');
    expectError(await ts.acme.post(`/leads/${again}/resubscribe`, { channels: ['sms'] }), 409, /texting START/);
  });

  it('suppressions are kept as keyed digests, never as the address or its plain SHA-256', async () => {
    const ts = ctx();
    const { id, phone } = await lead(ts);
    await ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms'] });
    const rows = await ts.server.store.db.selectFrom('suppressions').selectAll().execute();
    const { createHash } = await import('node:crypto');
    const plain = createHash('sha256').update(phone).digest('hex');
    expect(rows.some((r) => r.address_digest === ts.server.deps.digests.keyed(phone) && r.digest_kind === 'hmac')).toBe(
      true,
    );
    expect(rows.some((r) => r.address_digest === plain || r.address_digest.includes(phone.slice(1)))).toBe(false);
  });
});

describeEachDialect('the consent ledger', (ctx) => {
  it('records every change with its source, actor and the inbound message that caused it, oldest first', async () => {
    const ts = ctx();
    const { id, phone } = await lead(ts, { email: `ledger-${Date.now()}@example.com` });
    await ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['email'] });
    const stop = await inbound(ts.acme, { channel: 'sms', from: phone, text: 'Stop please' });
    await ts.acme.post(`/leads/${id}/resubscribe`, { channels: ['email'] });
    const start = await inbound(ts.acme, { channel: 'sms', from: phone, text: 'START' });
    const res = await ts.acme.get(`/leads/${id}/consent`);
    expect(res.status).toBe(200);
    const records = res.body.records as Record<string, unknown>[];
    expect(records.map((r) => [r.channel, r.action, r.source])).toEqual([
      ['email', 'optOut', 'api'],
      ['sms', 'optOut', 'keyword'],
      ['email', 'optIn', 'api'],
      ['sms', 'optIn', 'keyword'],
    ]);
    expect(records[0]!.actor).toMatch(/^key:/);
    expect(records[1]).toMatchObject({ inboundMessageId: stop.messageId, actor: expect.stringMatching(/^key:/) });
    expect(records[3]).toMatchObject({ inboundMessageId: start.messageId });
    expect(
      records.every(
        (r) =>
          r.addressDigest !== phone && typeof r.addressDigest === 'string' && (r.addressDigest as string).length === 64,
      ),
    ).toBe(true);
  });

  it('exports a date range as CSV, one line per record, and refuses an empty range', async () => {
    const ts = ctx();
    const { id } = await lead(ts);
    const before = new Date(Date.now() - 60_000).toISOString();
    await ts.acme.post(`/leads/${id}/unsubscribe`, {});
    const after = new Date(Date.now() + 60_000).toISOString();
    const res = await ts.acme.get(`/consent/export?from=${encodeURIComponent(before)}&to=${encodeURIComponent(after)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (res.body as string).trim().split('\r\n');
    expect(lines[0]).toBe('id,leadId,channel,action,source,reason,actor,inboundMessageId,addressDigest,createdAt');
    const mine = lines.filter((l) => l.includes(id));
    expect(mine.map((l) => l.split(',').slice(2, 5).join(','))).toEqual(['sms,optOut,api', 'voice,optOut,api']);
    const empty = await ts.acme.get(
      `/consent/export?from=${encodeURIComponent(after)}&to=${encodeURIComponent(before)}`,
    );
    expectError(empty, 400, 'to must be later than from');
    // A leap second passes the date-time format but is no JavaScript date: named, not read as an empty range.
    const leap = await ts.acme.get(
      `/consent/export?from=${encodeURIComponent('2016-12-31T23:59:60Z')}&to=${encodeURIComponent(after)}`,
    );
    expectError(leap, 400, 'from must be an ISO 8601 timestamp such as 2026-05-14T15:00:00Z');
  });

  it('is another organization-proof: a lead of acme has no ledger for beta', async () => {
    const ts = ctx();
    const { id } = await lead(ts);
    expectError(await ts.beta.get(`/leads/${id}/consent`), 404, `Resource not found: Lead with id ${id}`);
  });
});

describeEachDialect('who may lift an opt-out', (ctx) => {
  it('speaking as the lead needs the dedicated inbound:write scope, which no default key holds', async () => {
    const ts = ctx();
    const { phone } = await lead(ts);
    const writer = await ts.clientWithScopes(['leads:write', 'messages:write', 'leads:read']);
    expectError(await writer.post('/inbound', { channel: 'sms', from: phone, text: 'START' }), 403, 'Forbidden');
    const { DEFAULT_SCOPES } = await import('../../src/platform/auth/scopes.js');
    expect(DEFAULT_SCOPES).not.toContain('inbound:write');
  });

  it("START lifts the lead's own text opt-out, not an API, link or DNC one; the API cannot lift the lead's", async () => {
    const ts = ctx();
    const a = await lead(ts);
    await ts.acme.post(`/leads/${a.id}/unsubscribe`, { channels: ['sms'] });
    expect((await inbound(ts.acme, { channel: 'sms', from: a.phone, text: 'START' })).action).toBe('conversation');
    expect((await ts.acme.get(`/leads/${a.id}`)).body.subscriptions.sms).toBe('unsubscribed');

    const b = await lead(ts);
    await inbound(ts.acme, { channel: 'sms', from: b.phone, text: 'stop texting me' });
    expectError(await ts.acme.post(`/leads/${b.id}/resubscribe`, { channels: ['sms'] }), 409, /in their own words/);
    expect((await inbound(ts.acme, { channel: 'sms', from: b.phone, text: 'start' })).action).toBe('resubscribed');
    expect((await ts.acme.get(`/leads/${b.id}`)).body.subscriptions.sms).toBe('subscribed');

    const c = await lead(ts);
    await inbound(ts.acme, { channel: 'sms', from: c.phone, text: 'Never contact me again' });
    expect((await inbound(ts.acme, { channel: 'sms', from: c.phone, text: 'START' })).action).not.toBe('resubscribed');
    expect((await ts.acme.get(`/leads/${c.id}`)).body.subscriptions.sms).toBe('unsubscribed');
  });

  it('"never contact me" is lifted only by removing the DNC entry, which lifts sms and voice and not email', async () => {
    const ts = ctx();
    const { id, phone } = await lead(ts, { email: `never-${Date.now()}@example.com` });
    expect((await inbound(ts.acme, { channel: 'sms', from: phone, text: 'never contact me again' })).action).toBe(
      'do_not_contact',
    );
    expectError(await ts.acme.post(`/leads/${id}/resubscribe`, {}), 409, /Do Not Contact/);
    expect((await ts.acme.post('/dnc/remove', { phone })).status).toBe(200);
    expect((await ts.acme.get(`/leads/${id}`)).body.subscriptions).toEqual({
      sms: 'subscribed',
      voice: 'subscribed',
      email: 'unsubscribed',
    });
    const lifts = (await ts.acme.get(`/leads/${id}/consent`)).body.records.filter(
      (r: { action: string }) => r.action === 'optIn',
    );
    expect(lifts.map((r: { channel: string; source: string }) => `${r.channel}:${r.source}`)).toEqual([
      'sms:dnc',
      'voice:dnc',
    ]);
  });

  it("an API opt-out over the lead's own STOP keeps the STOP (the harder one to lift)", async () => {
    const ts = ctx();
    const { id, phone } = await lead(ts);
    await inbound(ts.acme, { channel: 'sms', from: phone, text: 'STOP' });
    await ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms'] });
    expectError(await ts.acme.post(`/leads/${id}/resubscribe`, { channels: ['sms'] }), 409, /STOP keyword/);
  });
});

describeEachDialect('confirmations answer what they confirm', (ctx) => {
  it('one STOP confirmation, even for repeated and concurrent STOPs, and nothing after it', async () => {
    const ts = ctx();
    ts.clock.set(LA_NOON);
    await ts.acme.patch('/settings', { contactHours: { start: '08:00', end: '21:00' } });
    const { id, phone } = await lead(ts);
    await Promise.all(
      ['STOP', 'stop', 'STOP STOP', 'Stop.'].map((text) => inbound(ts.acme, { channel: 'sms', from: phone, text })),
    );
    await ts.runDue();
    const outbound = await messages(ts.acme, id);
    const confirmations = outbound.filter((m) => m.direction === 'outbound');
    expect(confirmations).toHaveLength(1);
    expect(confirmations[0]).toMatchObject({
      status: 'sent',
      content: { text: expect.stringMatching(/unsubscribed/) },
    });
    const after = await ts.acme.post(`/leads/${id}/sendMessage`, { message: 'One more thing', sendWhenOff: true });
    expect(after.body).toMatchObject({ status: 'blocked', statusCode: 'OPTED_OUT' });
  });
});

// No worker here: the HELP answer must still be queued when the STOP arrives.
describeEachDialect(
  'replies queued before an opt-out',
  (ctx) => {
    it('a HELP answer queued before a STOP is never sent, and says why', async () => {
      const ts = ctx();
      ts.clock.set(LA_NOON);
      const { id, phone } = await lead(ts);
      await inbound(ts.acme, { channel: 'sms', from: phone, text: 'HELP' });
      await inbound(ts.acme, { channel: 'sms', from: phone, text: 'STOP' });
      const out = (await messages(ts.acme, id)).filter((m) => m.direction === 'outbound');
      expect(out.map((m) => [m.status, m.statusCode])).toEqual([
        ['blocked', 'OPTED_OUT_BEFORE_SEND'],
        ['scheduled', null],
      ]);
    });
  },
  { PARLEY_WORKER: 'false' },
);

describeEachDialect('the answer to a send says what the gate decided', (ctx) => {
  it('scheduled inside the window, waiting outside it (with the opening time), blocked when it can never go', async () => {
    const ts = ctx();
    await ts.acme.patch('/settings', {
      contactHours: { start: '08:00', end: '21:00' },
      contactDays: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
    });
    const { id } = await lead(ts);
    ts.clock.set(LA_NOON);
    const now = await ts.acme.post(`/leads/${id}/sendMessage`, { message: 'Hi at noon' });
    expect(now.body).toMatchObject({ message: 'Message sent successfully.', status: 'scheduled', statusCode: null });
    ts.clock.set('2026-06-10T10:00:00Z'); // 03:00 in Los Angeles
    const night = await ts.acme.post(`/leads/${id}/sendMessage`, { message: 'Hi at night' });
    expect(night.body).toMatchObject({
      status: 'waiting',
      statusCode: 'CONTACT_HOURS',
      scheduledTime: '2026-06-10T15:00:00.000Z',
    });
    const waiting = (await messages(ts.acme, id)).find((m) => m.id === night.body.id)!;
    expect(waiting).toMatchObject({
      status: 'scheduled',
      statusCode: 'CONTACT_HOURS',
      statusReason: expect.stringContaining('America/Los_Angeles'),
    });
    await ts.acme.post(`/leads/${id}/turnOffAi`);
    const off = await ts.acme.post(`/leads/${id}/sendMessage`, { message: 'AI is off' });
    expect(off.body).toMatchObject({
      message: 'Message blocked by the compliance gate.',
      status: 'blocked',
      statusCode: 'AI_OFF',
    });
    expect((await messages(ts.acme, id)).find((m) => m.id === off.body.id)).toMatchObject({
      status: 'blocked',
      statusCode: 'AI_OFF',
    });
  });

  it('a frequency cap blocks automated messages past N in 24 hours, never a human one', async () => {
    const ts = ctx();
    ts.clock.set(LA_NOON);
    await ts.acme.patch('/settings', { frequencyCap: { maxAutomatedPerDay: 1 } });
    const { id } = await lead(ts);
    const db = ts.server.store.db;
    const org = (await db.selectFrom('leads').select('organization_id').where('id', '=', id).executeTakeFirstOrThrow())
      .organization_id;
    const { scheduleSend } = await import('../../src/messages/send.service.js');
    const { findLead } = await import('../../src/lead-records/leads.repository.js');
    const row = (await findLead(db, org, id))!;
    const now = ts.clock.now();
    const ids = [];
    for (const text of ['automated one', 'automated two']) {
      ids.push(
        await scheduleSend(db, {
          organizationId: org,
          lead: row,
          channel: 'sms',
          text,
          runAt: now,
          sendWhenOff: false,
          isAiGenerated: true,
          now: now.toISOString(),
        }),
      );
      await ts.runDue();
      expect((await messages(ts.acme, id)).filter((m) => m.status === 'scheduled' || m.status === 'sending')).toEqual(
        [],
      );
    }
    const ms = await messages(ts.acme, id);
    expect(ids.map((mid) => ms.find((m) => m.id === mid)).map((m) => [m?.status, m?.statusCode])).toEqual([
      ['sent', null],
      ['blocked', 'FREQUENCY_CAP'],
    ]);
    const human = await ts.acme.post(`/leads/${id}/sendMessage`, { message: 'from a person' });
    expect(human.body.status).toBe('scheduled');
  });

  it("counts the AI's calls with its messages: a text after a call can reach the cap", async () => {
    const ts = ctx();
    ts.clock.set(LA_NOON);
    await ts.acme.patch('/settings', { frequencyCap: { maxAutomatedPerDay: 2 } });
    const { id } = await lead(ts);
    const db = ts.server.store.db;
    const org = (await db.selectFrom('leads').select('organization_id').where('id', '=', id).executeTakeFirstOrThrow())
      .organization_id;
    const { insertCall } = await import('../../src/call-records/calls.repository.js');
    const { scheduleSend } = await import('../../src/messages/send.service.js');
    const { findLead } = await import('../../src/lead-records/leads.repository.js');
    const now = ts.clock.now().toISOString();
    // One call the AI placed to the lead (Twilio took it) an hour ago.
    const hourAgo = new Date(ts.clock.now().getTime() - 3_600_000).toISOString();
    await insertCall(db, org, {
      id: `call-${id}`,
      lead_id: id,
      direction: 'outbound',
      status: 'completed',
      provider_call_id: `CA${id.replace(/-/g, '')}`,
      created_at: hourAgo,
      updated_at: hourAgo,
    });
    const ids: Awaited<ReturnType<typeof scheduleSend>>[] = [];
    for (const text of ['after the call', 'one too many']) {
      ids.push(
        await scheduleSend(db, {
          organizationId: org,
          lead: (await findLead(db, org, id))!,
          channel: 'sms',
          text,
          runAt: ts.clock.now(),
          sendWhenOff: false,
          isAiGenerated: true,
          now,
        }),
      );
      await ts.runDue();
    }
    const ms = await messages(ts.acme, id);
    expect(ids.map((mid) => ms.find((m) => m.id === mid)).map((m) => [m?.status, m?.statusCode])).toEqual([
      ['sent', null],
      ['blocked', 'FREQUENCY_CAP'],
    ]);
    expect(ms.find((m) => m.id === ids[1])?.statusReason).toBe(
      '2 automated messages and calls in the last 24 hours (cap 2)',
    );
    await ts.acme.patch('/settings', { frequencyCap: null });
  });
});

describeEachDialect('organization keywords and address-bound links', (ctx) => {
  it("an organization's own opt-out and opt-in words work like the built-ins, which stay", async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(
      ['settings:write', 'leads:write', 'leads:read', 'inbound:write'],
      'own-words',
    );
    await org.patch('/settings', { optOutKeywords: ['Basta ya'], optInKeywords: ['Vuelvo'] });
    const phone = uniquePhone();
    const id = await createLead(org, { phone });
    expect((await inbound(org, { channel: 'sms', from: phone, text: 'BASTA YA!' })).action).toBe('opted_out');
    expect((await inbound(org, { channel: 'sms', from: phone, text: 'vuelvo' })).action).toBe('resubscribed');
    expect((await inbound(org, { channel: 'sms', from: phone, text: 'STOP' })).action).toBe('opted_out');
    expect((await inbound(org, { channel: 'sms', from: phone, text: 'vuelvo a casa el lunes, hablamos' })).action).toBe(
      'conversation',
    );
    expect((await org.get(`/leads/${id}`)).body.subscriptions.sms).toBe('unsubscribed');
  });

  it('an unsubscribe link unsubscribes the address it was sent to, even after the lead changed its email', async () => {
    const ts = ctx();
    const { issueUnsubscribeToken, unsubscribeKey } = await import('../../src/channels/unsubscribe-token.js');
    const oldEmail = `old-${Date.now()}@example.com`;
    const { id } = await lead(ts, { email: oldEmail });
    const org = (
      await ts.server.store.db
        .selectFrom('leads')
        .select('organization_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).organization_id;
    const token = issueUnsubscribeToken(await unsubscribeKey(ts.server.deps), {
      organizationId: org,
      leadId: id,
      channel: 'email',
      issuedAt: new Date(),
      addressDigest: ts.server.deps.digests.keyed(oldEmail),
    });
    await ts.acme.patch(`/leads/${id}`, { email: `new-${Date.now()}@example.com` });
    const res = await ts.raw(`/v1/unsubscribe/${token}`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect((await ts.acme.get(`/leads/${id}`)).body.subscriptions.email).toBe('subscribed');
    const again = await lead(ts, { email: oldEmail });
    expect((await ts.acme.get(`/leads/${again.id}`)).body.subscriptions.email).toBe('unsubscribed');
    const [record] = (await ts.acme.get(`/leads/${id}/consent`)).body.records;
    expect(record).toMatchObject({
      channel: 'email',
      action: 'optOut',
      source: 'link',
      reason: 'UNSUBSCRIBE_LINK',
      addressDigest: ts.server.deps.digests.keyed(oldEmail),
    });
  });
});

describeEachDialect('email provider reports', (ctx) => {
  it('a hard bounce and a complaint opt the address out of email with BOUNCE / COMPLAINT', async () => {
    const ts = ctx();
    const email = `bounce-${Date.now()}@example.com`;
    const { id } = await lead(ts, { email });
    const res = await ts.acme.post('/inbound/emailEvents', {
      event: 'bounce',
      email: email.toUpperCase(),
      detail: '550 5.1.1 user unknown',
    });
    expect(res.body).toEqual({ message: 'Email event recorded.', leadId: id, action: 'opted_out' });
    const [optOut] = await outboxFor(ts, id, 'optOut');
    expect(optOut!.data).toMatchObject({ channel: 'email', source: 'bounce' });
    const ledger = (await ts.acme.get(`/leads/${id}/consent`)).body.records;
    expect(ledger).toEqual([expect.objectContaining({ channel: 'email', source: 'bounce', reason: 'BOUNCE' })]);
    const stranger = `nobody-${Date.now()}@example.com`;
    expect((await ts.acme.post('/inbound/emailEvents', { event: 'complaint', email: stranger })).body).toMatchObject({
      leadId: null,
      action: 'suppressed',
    });
    const later = await lead(ts, { email: stranger });
    expect((await ts.acme.get(`/leads/${later.id}`)).body.subscriptions.email).toBe('unsubscribed');
    expectError(await ts.acme.post(`/leads/${later.id}/resubscribe`, { channels: ['email'] }), 409, /spam/);
    expectError(await ts.acme.post('/inbound/emailEvents', { event: 'softBounce', email }), 400, /event/);
  });
});
