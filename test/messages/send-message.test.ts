import { expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { startServer } from '../../src/server.js';
import { LATE_NIGHT, MIDDAY, NEXT_MORNING, REALISTIC_HOURS, useRealisticHours } from '../support/clock-hours.js';
import {
  clientFor,
  createLead,
  describeEachDialect,
  freshDatabase,
  type Client,
  type TestServer,
} from '../support/harness.js';
import { outboxFor } from '../support/events.js';
import { statusAfterStep } from '../support/messages.js';
import { TestClock } from '../support/test-clock.js';
import { messages } from '../agent/helpers.js';

const FAST = { PARLEY_WORKER_POLL_MS: '20' };
/** The gate's suites keep realistic hours (08:00-21:00) and put the server's clock at midday: what goes out, goes out because the gate allows it. */
async function openedAtMidday(ts: TestServer, client: Client = ts.acme): Promise<void> {
  ts.clock.set(MIDDAY);
  await useRealisticHours(client);
}

async function send(ts: TestServer, leadId: string, body: Record<string, unknown>) {
  const res = await ts.acme.post(`/leads/${leadId}/sendMessage`, body);
  expect(res.status).toBe(200);
  return res.body as { id: string; message: string; channel: string; scheduledTime: string };
}

describeEachDialect(
  'POST /leads/{id}/sendMessage and the compliance gate',
  (ctx) => {
    it('sends through the channel, records it sent and emits message.sent', async () => {
      const ts = ctx();
      await openedAtMidday(ts);
      const leadId = await createLead(ts.acme);
      const sent = await send(ts, leadId, { message: 'Hello there' });
      expect(sent.message).toBe('Message sent successfully.');
      expect(sent.channel).toBe('sms');
      const msg = await statusAfterStep(ts, ts.acme, leadId, sent.id, (s) => s === 'sent');
      expect(msg).toMatchObject({
        content: { text: 'Hello there' },
        owner: 'user',
        isAiGenerated: false,
        direction: 'outbound',
        statusReason: null,
      });
      const events = await outboxFor(ts, leadId, 'message.sent');
      expect(events).toHaveLength(1);
      expect(events[0]!.data).toMatchObject({ messageId: sent.id, channel: 'sms', text: 'Hello there' });
      expect((await ts.acme.get(`/leads/${leadId}`)).body.lastActivityAt).not.toBeNull();
    });

    it.each([
      [
        'an unsubscribed channel',
        async (ts: TestServer, id: string) => {
          await ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms'] });
        },
        {},
        'lead is unsubscribed from sms',
      ],
      [
        'a phone on the DNC list',
        async (ts: TestServer, id: string) => {
          const phone = (await ts.acme.get(`/leads/${id}`)).body.phone;
          expect((await ts.acme.post('/dnc/register', { phone })).status).toBe(200);
        },
        {},
        'phone is on the Do Not Contact list',
      ],
      [
        'the AI off',
        async (ts: TestServer, id: string) => {
          await ts.acme.post(`/leads/${id}/turnOffAi`);
        },
        {},
        'AI is off for this lead',
      ],
      [
        'DNC even with sendWhenOff',
        async (ts: TestServer, id: string) => {
          const phone = (await ts.acme.get(`/leads/${id}`)).body.phone;
          await ts.acme.post('/dnc/register', { phone });
          await ts.acme.post(`/leads/${id}/turnOffAi`);
        },
        { sendWhenOff: true },
        'phone is on the Do Not Contact list',
      ],
    ])('blocks a send to %s and records why', async (_name, arrange, extra, reason) => {
      const ts = ctx();
      await openedAtMidday(ts);
      const leadId = await createLead(ts.acme);
      await arrange(ts, leadId);
      const sent = await send(ts, leadId, { message: 'Should not go out', ...extra });
      const msg = await statusAfterStep(ts, ts.acme, leadId, sent.id, (s) => s !== 'scheduled' && s !== 'sending');
      expect(msg.status).toBe('blocked');
      expect(msg.statusReason).toBe(reason);
      expect(await outboxFor(ts, leadId, 'message.sent')).toHaveLength(0);
    });

    it('sends while the AI is off when sendWhenOff is true', async () => {
      const ts = ctx();
      await openedAtMidday(ts);
      const leadId = await createLead(ts.acme);
      await ts.acme.post(`/leads/${leadId}/turnOffAi`);
      const sent = await send(ts, leadId, { message: 'Human follow-up', sendWhenOff: true });
      expect((await statusAfterStep(ts, ts.acme, leadId, sent.id, (s) => s === 'sent')).status).toBe('sent');
    });

    it('holds a send made at 23:00 where the lead is until 08:00, then sends it', async () => {
      const ts = ctx();
      const org = await ts.clientWithScopes(
        ['settings:write', 'leads:write', 'leads:read', 'messages:write'],
        'quiet-hours-org',
      );
      await useRealisticHours(org);
      ts.clock.set(LATE_NIGHT);
      const leadId = await createLead(org, { timeZone: REALISTIC_HOURS.timeZone });
      const sent = await org.post(`/leads/${leadId}/sendMessage`, { message: 'Good morning' });
      expect(sent.status).toBe(200);
      // Queued, then judged by the gate: held, with the reason recorded.
      await ts.runDue();
      const judged = await messages(org, leadId);
      expect(judged.find((m) => m.id === sent.body.id)).toMatchObject({
        status: 'scheduled',
        statusReason: 'outside contact hours 08:00-21:00 America/Los_Angeles',
      });
      const job = await ts.server.store.db
        .selectFrom('jobs')
        .selectAll()
        .where('payload', 'like', `%${sent.body.id}%`)
        .executeTakeFirstOrThrow();
      expect(new Date(job.run_at).toISOString()).toBe(NEXT_MORNING.toISOString());
      // Still held after another step: nothing goes out before the window.
      expect((await statusAfterStep(ts, org, leadId, sent.body.id)).status).toBe('scheduled');
      expect(await outboxFor(ts, leadId, 'message.sent')).toHaveLength(0);
      // The window opens: it goes out.
      ts.clock.set(NEXT_MORNING);
      await statusAfterStep(ts, org, leadId, sent.body.id, (s) => s === 'sent');
      expect(await outboxFor(ts, leadId, 'message.sent')).toHaveLength(1);
    });

    it('waits for scheduledTime, then sends', async () => {
      const ts = ctx();
      await openedAtMidday(ts);
      const leadId = await createLead(ts.acme);
      const at = new Date(ts.clock.now().getTime() + 1500);
      const sent = await send(ts, leadId, { message: 'Later', scheduledTime: at.toISOString() });
      expect(sent.scheduledTime).toBe(at.toISOString());
      await ts.runDue();
      const early = (await ts.acme.get(`/leads/${leadId}/messages`)).body.messages[0];
      expect(early!.status).toBe('scheduled');
      ts.clock.set(at);
      await statusAfterStep(ts, ts.acme, leadId, sent.id, (s) => s === 'sent');
      expect(ts.clock.now().getTime()).toBeGreaterThanOrEqual(at.getTime());
    });

    it('rejects a channel the lead cannot receive, bad bodies, unknown leads and read-only keys', async () => {
      const ts = ctx();
      const leadId = await createLead(ts.acme);
      const noEmail = await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'x', channel: 'email' });
      expect(noEmail).toMatchObject({ status: 400, body: { message: 'Lead has no email' } });
      expect((await ts.acme.post(`/leads/${leadId}/sendMessage`, {})).body.message).toBe('message is required');
      expect(
        (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'x', scheduledTime: 'tomorrow' })).status,
      ).toBe(400);
      expect(
        (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'x', scheduledTime: '2099-01-01T00:00:00Z' }))
          .body.message,
      ).toBe('scheduledTime must be within a year');
      const missing = await ts.acme.post('/leads/00000000-0000-7000-8000-000000000000/sendMessage', { message: 'x' });
      expect(missing).toMatchObject({
        status: 404,
        body: { message: 'Resource not found: Lead with id 00000000-0000-7000-8000-000000000000' },
      });
      const other = await ts.beta.post(`/leads/${leadId}/sendMessage`, { message: 'x' });
      expect(other.status).toBe(404);
      const reader = await ts.clientWithScopes(['leads:read']);
      expect((await reader.post(`/leads/${leadId}/sendMessage`, { message: 'x' })).body).toEqual({
        message: 'Forbidden',
        code: 'forbidden',
      });
      expect((await ts.acme.get(`/leads/${leadId}/messages`)).body.messages).toHaveLength(0);
    });
  },
  FAST,
);

describeEachDialect('scheduled sends survive a restart', (ctx) => {
  it('a send scheduled before a restart goes out once after it', async () => {
    const dialect = ctx().dialect;
    const db = await freshDatabase(dialect);
    const env = {
      DATABASE_URL: db.url,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      PARLEY_WORKER_POLL_MS: '20',
    };
    // One clock for both processes, at midday where the lead is, with realistic hours: the send is due, and allowed, after the restart.
    const clock = new TestClock();
    clock.set(MIDDAY);
    const first = await startServer(loadConfig(env), { clock });
    const { issueKey } = await import('../../src/organizations/api-keys.service.js');
    const key = (await issueKey(first.store.db, 'acme')).key;
    let client = clientFor(first.address, key);
    await useRealisticHours(client);
    const leadId = await createLead(client);
    const sent = (
      await client.post(`/leads/${leadId}/sendMessage`, {
        message: 'After restart',
        scheduledTime: new Date(clock.now().getTime() + 1200).toISOString(),
      })
    ).body;
    await first.stop();
    const second = await startServer(loadConfig(env), { clock });
    client = clientFor(second.address, key);
    try {
      // The send is due 1.2 s after it was made: move the shared clock there and step the new server's worker.
      clock.set(new Date(Date.parse(sent.scheduledTime!) + 1));
      // biome-ignore lint/style/noNonNullAssertion: the server runs its worker (PARLEY_WORKER is not turned off)
      await statusAfterStep({ runDue: () => second.worker!.runDue() }, client, leadId, sent.id, (s) => s === 'sent');
      const events = await second.store.db
        .selectFrom('events')
        .selectAll()
        .where('type', '=', 'message.sent')
        .execute();
      expect(events).toHaveLength(1);
    } finally {
      await second.stop();
      await db.drop();
    }
  });
});
