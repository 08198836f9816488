import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { Receiver, respond } from '../support/receiver.js';
import { scanCoverage, scanText, type Hit } from '../support/scan.js';
import { deliveriesOf, eventually, FAST_WEBHOOKS, registerEndpoint } from '../support/webhooks.js';

/**
 * Twilio's REST API, answering the first message to each number with an
 * error whose text quotes the number (as Twilio's "21211 The 'To' number
 * +1... is not valid" does): the send job records it as its last error,
 * retries, and succeeds. It comes as a 429, which the send path retries: a
 * 400 is a refusal, never retried.
 */
async function startQuotingTwilio() {
  const refused = new Set<string>();
  let calls = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls += 1;
      const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const to = params.get('To') ?? '';
      if (!refused.has(to)) {
        refused.add(to);
        res.writeHead(429, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            code: 20429,
            message: `Too many requests for the 'To' number ${to}; try again later.`,
            status: 429,
          }),
        );
        return;
      }
      res
        .writeHead(201, { 'content-type': 'application/json' })
        .end(JSON.stringify({ sid: `SM${calls}`, status: 'queued' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const twilio = await startQuotingTwilio();
afterAll(() => twilio.close());

const ENV = {
  ...FAST_WEBHOOKS,
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms,50ms',
  TWILIO_ACCOUNT_SID: 'ACerasure',
  TWILIO_AUTH_TOKEN: 'erasure-token',
  TWILIO_API_BASE_URL: twilio.url,
};

let keys = 0;
const withKey = <P extends string>(client: Client, path: P, body: unknown) =>
  client.call('POST', path, body, { 'Idempotency-Key': `erasure-${process.pid}-${++keys}` });

async function orgIdOf(ts: TestServer, name: string): Promise<string> {
  const row = await ts.server.store.db
    .selectFrom('organizations')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.id;
}

const where = (hits: Hit[]) =>
  hits.map((h) => `${h.table}.${h.column} holds ${JSON.stringify(h.needle)}: ${h.value.slice(0, 200)}`);

describeEachDialect(
  'DELETE /v1/leads/{id} erases the lead everywhere',
  (ctx) => {
    const receiver = new Receiver();
    beforeAll(async () => {
      await receiver.start();
      receiver.behaviour = respond(200);
    });
    afterAll(() => receiver.stop());

    it('leaves no name, address or text of the lead in any text column of any table, and keeps its opt-outs', async () => {
      const ts = ctx();
      // Noon in Los Angeles (the phone's area code): every send is inside the legal contact window.
      ts.clock.set('2026-06-10T19:00:00Z');
      const db = ts.server.store.db;
      const api = await ts.clientWithScopes([...SCOPES]);
      const org = await orgIdOf(ts, 'acme');
      const mark = `${Date.now().toString(36)}${ts.dialect}`;
      const firstName = `Quillon${mark}`;
      const lastName = `Varnbrook${mark}`;
      const phone = uniquePhone();
      const email = `quillon.${mark}@example.com`;
      const text = {
        unmatchedSms: `unmatched-sms-${mark}`,
        unmatchedEmail: `unmatched-email-${mark}`,
        unmatchedSubject: `unmatched-subject-${mark}`,
        sms: `outbound-sms-${mark}`,
        email: `outbound-email-${mark}`,
        context: `context-note-${mark}`,
        reply: `commanded-reply-${mark}`,
        info: `additional-info-${mark}`,
        inbound: `inbound-sms-${mark}`,
        inboundEmail: `inbound-email-${mark}`,
        inboundSubject: `inbound-subject-${mark}`,
      };
      const personal = [firstName, lastName, phone, phone.slice(1), email, ...Object.values(text)];

      expect(
        (
          await api.patch('/settings', {
            sendingNumber: '+14155550199',
            contactHours: { start: '00:00', end: '00:00' },
          })
        ).status,
      ).toBe(200);
      const endpoint = await registerEndpoint(api, receiver);

      // Before the lead exists: its phone and email write in, and nobody holds them.
      expect((await api.post('/inbound', { channel: 'sms', from: phone, text: text.unmatchedSms })).body.action).toBe(
        'unmatched',
      );
      expect(
        (
          await api.post('/inbound', {
            channel: 'email',
            from: email,
            text: text.unmatchedEmail,
            subject: text.unmatchedSubject,
          })
        ).body.action,
      ).toBe('unmatched');

      const created = await withKey(api, '/leads/create', { firstName, lastName, phone, email });
      expect(created.status).toBe(200);
      const id = created.body.id;
      // A stored 409 that quotes the phone (and not the id).
      const duplicate = await withKey(api, '/leads/create', { firstName, phone });
      expect(duplicate.status).toBe(409);
      expect(JSON.stringify(duplicate.body)).toContain(phone);

      expect((await withKey(api, `/leads/${id}/sendMessage`, { message: text.sms })).status).toBe(200);
      expect((await withKey(api, `/leads/${id}/sendMessage`, { message: text.email, channel: 'email' })).status).toBe(
        200,
      );
      expect(
        (
          await withKey(api, `/leads/${id}/addContext`, {
            context: text.context,
            command: `send message: ${text.reply}`,
            additionalInfo: { colour: text.info },
          })
        ).status,
      ).toBe(200);
      // A buying word: the scripted agent tags the lead 'hot' and carries out the command (a reply).
      const inbound = await withKey(api, '/inbound', {
        channel: 'sms',
        from: phone,
        text: `I am ready to buy, ${text.inbound}`,
      });
      expect(inbound.body).toMatchObject({ action: 'conversation', leadId: id });

      const outbound = async () =>
        (
          (await api.get(`/leads/${id}/messages`)).body.messages as {
            direction: string;
            status: string;
            content: { text: string };
          }[]
        ).filter((m) => m.direction === 'outbound');
      // The sends, the agent's reply among them, went out. A send paced to its number's next slot is not due yet
      // when a step returns: step until none is waiting.
      await eventually('the sends gone', async () => {
        await ts.runDue();
        return (await outbound()).every((m) => !['scheduled', 'sending', 'queued'].includes(m.status));
      });
      const out = await outbound();
      expect(out.map((m) => m.content.text)).toContain(text.reply);
      expect(out.filter((m) => m.status !== 'sent')).toEqual([]);
      expect((await api.get(`/leads/${id}`)).body.tags.map((t: { name: string }) => t.name)).toContain('hot');
      // After the turn above (a newer message would have superseded it).
      expect(
        (
          await withKey(api, '/inbound', {
            channel: 'email',
            from: email,
            text: text.inboundEmail,
            subject: text.inboundSubject,
          })
        ).body.leadId,
      ).toBe(id);

      // Opt-outs: STOP by text (sms), the API for email.
      expect((await api.post('/inbound', { channel: 'sms', from: phone, text: 'STOP' })).body.action).toBe('opted_out');
      expect((await withKey(api, `/leads/${id}/unsubscribe`, { channels: ['email'] })).status).toBe(200);

      // Quiet: every job run, every event dispatched, every delivery made.
      await ts.runDue();
      const jobs = await db
        .selectFrom('jobs')
        .select('id')
        .where('organization_id', '=', org)
        .where('status', '=', 'pending')
        .execute();
      expect(jobs).toEqual([]);
      const undispatched = await db
        .selectFrom('events')
        .select('id')
        .where('organization_id', '=', org)
        .where('dispatched_at', 'is', null)
        .execute();
      expect(undispatched).toEqual([]);
      expect((await deliveriesOf(api, endpoint.id)).filter((d) => d.status !== 'succeeded')).toEqual([]);
      const deliveries = await deliveriesOf(api, endpoint.id);
      expect(deliveries.length).toBeGreaterThanOrEqual(6);
      expect(receiver.received.some((r) => r.body.includes(text.inbound))).toBe(true);
      // Today's sender writes only `HTTP <status>` or a transport error here, but the column is free
      // text and an error may quote what was sent: plant one that does.
      await db
        .updateTable('webhook_deliveries')
        .set({ last_error: `receiver answered 422: unknown recipient ${phone}` })
        .where('organization_id', '=', org)
        .where('id', '=', deliveries[0]!.id)
        .execute();
      // And an attempt's answer (0039) on another delivery, whose last error quotes nothing.
      await db
        .updateTable('webhook_deliveries')
        .set({ answers: JSON.stringify([{ at: new Date().toISOString(), statusCode: 422, error: `no ${phone}` }]) })
        .where('organization_id', '=', org)
        .where('id', '=', deliveries[1]!.id)
        .execute();

      // The scan is not vacuous: before the erasure it finds the lead on every path.
      const { tables, columns } = await scanCoverage(db, ts.dialect);
      expect(columns).toBeGreaterThan(50);
      const before = await scanText(db, ts.dialect, [...personal, id]);
      const seen = new Set(before.map((h) => h.table));
      for (const t of [
        'leads',
        'messages',
        'lead_notes',
        'lead_tags',
        'agent_turns',
        'events',
        'unmatched_inbound',
        'idempotency_keys',
        'jobs',
        'webhook_deliveries',
      ]) {
        expect(tables.has(t), `${t} is scanned`).toBe(true);
        expect(seen.has(t), `the lead is in ${t} before the erasure`).toBe(true);
      }
      expect(before.some((h) => h.table === 'jobs' && h.column === 'last_error' && h.needle === phone)).toBe(true);
      expect(
        before.some((h) => h.table === 'idempotency_keys' && h.column === 'response_body' && h.needle === phone),
      ).toBe(true);

      const erased = await api.del(`/leads/${id}`);
      expect(erased.status).toBe(200);

      // Nothing personal, anywhere.
      expect(where(await scanText(db, ts.dialect, personal))).toEqual([]);
      // The id (an opaque UUID, not personal data) only where it is needed.
      const stub = JSON.stringify({ leadId: id, erased: true });
      const allowed = (h: Hit) =>
        (h.table === 'events' && h.column === 'payload' && h.value === stub) ||
        // Beside the stub, the lead it names, and on the stub's deliveries (0045): they are still found by the lead's id.
        (h.table === 'events' && h.column === 'lead_id' && h.row.payload === stub) ||
        (h.table === 'webhook_deliveries' && h.column === 'lead_id') ||
        (h.table === 'consent_ledger' && h.column === 'lead_id') ||
        // GET /v1/leads lists an erased lead as its id and `deleted: true` (docs/contract.md).
        (h.table === 'deleted_leads' && h.column === 'id') ||
        (h.table === 'jobs' && h.column === 'payload' && h.row.status === 'pending');
      expect(where((await scanText(db, ts.dialect, [id])).filter((h) => !allowed(h)))).toEqual([]);
      const stubs = await db
        .selectFrom('events')
        .select(['type', 'payload'])
        .where('organization_id', '=', org)
        .where('payload', '=', stub)
        .execute();
      expect(new Set(stubs.map((e) => e.type))).toEqual(
        new Set([
          'lead.created',
          'message.received',
          'message.sent',
          'optOut',
          'leadTagged',
          'lead.additionalInfo.updated',
        ]),
      );
      // Deliveries keep their rows (and their event): a replay sends the stub, nothing more.
      expect(await deliveriesOf(api, endpoint.id)).toHaveLength(deliveries.length);
      const count = receiver.received.length;
      const replayed = await api.post(`/webhooks/${endpoint.id}/deliveries/${deliveries[0]!.id}/replay`);
      expect(replayed.status).toBe(202);
      await ts.runDue();
      expect(receiver.received.length).toBeGreaterThan(count);
      expect(receiver.received.at(-1)!.json.data).toEqual({ leadId: id, erased: true });

      // The opt-outs outlive the lead, as keyed digests.
      const suppressed = await db
        .selectFrom('suppressions')
        .select('channel')
        .where('organization_id', '=', org)
        .execute();
      expect(suppressed.map((s) => s.channel)).toEqual(expect.arrayContaining(['sms', 'email']));
      const again = await api.post('/leads/create', { firstName: 'Again', phone, email });
      expect(again.status).toBe(200);
      const lead = (await api.get(`/leads/${again.body.id}`)).body;
      expect(lead.subscriptions.sms).toBe('unsubscribed');
      expect(lead.subscriptions.email).toBe('unsubscribed');
    }, 60_000);
  },
  ENV,
);
