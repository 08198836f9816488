import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { until } from '../support/assert.js';
import { describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { FAST_WEBHOOKS, receiverPool, registerEndpoint } from '../support/webhooks.js';
import { consoleClient, request } from './support.js';

/**
 * The console's inbox and conversation reads (console-api/inbox.routes.ts):
 * conversations only, a true count, pages; an email's subject apart from its
 * body, while /v1 answers exactly what it always did. Each test has its own
 * organization, so counts are exact.
 */
async function org(ts: TestServer) {
  const name = `inbox-${randomUUID().slice(0, 8)}`;
  const client = await ts.clientWithScopes([...SCOPES], name);
  const viewer = await consoleClient(ts, 'viewer', name);
  return { client, viewer };
}

async function lead(client: Client, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await client.post('/leads/create', { firstName: 'L', phone: uniquePhone(), isAiOn: false, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id;
}

const say = async (client: Client, body: Record<string, unknown>) => {
  const res = await client.post('/inbound', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

describeEachDialect('console inbox: conversations, a true count, pages, and an email subject apart', (ctx) => {
  it("keeps an inbound email's subject apart for the console; /v1 still folds it into the text", async () => {
    const ts = ctx();
    const { client, viewer } = await org(ts);
    const email = `ines.${randomUUID().slice(0, 6)}@example.com`;
    const id = await lead(client, { firstName: 'Ines', email });
    await say(client, { channel: 'email', from: email, subject: 'Quote for the roof', text: 'Can you come Tuesday?' });
    await say(client, { channel: 'email', from: email, text: 'And no subject this time.' });

    const mine = await viewer.call('GET', `/console/api/leads/${id}/messages`);
    expect(mine.status).toBe(200);
    expect(mine.body.messages.map((m) => [m.subject, m.content.text])).toEqual([
      ['Quote for the roof', 'Can you come Tuesday?'],
      [null, 'And no subject this time.'],
    ]);
    // The public API's shape and text are what they were before the subject had a column of its own.
    const v1 = await client.get(`/leads/${id}/messages`);
    expect(v1.body.messages.map((m: { content: unknown }) => m.content)).toEqual([
      { text: 'Quote for the roof\n\nCan you come Tuesday?' },
      { text: 'And no subject this time.' },
    ]);
    expect(Object.keys(v1.body.messages[0]!)).not.toContain('subject');
    expect((await viewer.call('GET', `/v1/leads/${id}/messages`)).body).toEqual(v1.body);

    // The inbox's preview: the last message, subject apart; /v1's lastMessage folds it, as before.
    await say(client, { channel: 'email', from: email, subject: 'Re: Quote', text: 'Tuesday works.' });
    const inbox = await viewer.call('GET', '/console/api/inbox');
    expect(inbox.body.conversations[0]!.lastMessage).toMatchObject({ subject: 'Re: Quote', text: 'Tuesday works.' });
    const listed = (await client.get('/leads?hasMessages=true')).body.leads as unknown as { lastMessage: object }[];
    expect(listed[0]!.lastMessage).toMatchObject({ text: 'Re: Quote\n\nTuesday works.' });
    expect(Object.keys(listed[0]!.lastMessage)).not.toContain('subject');
    // Parley's own STOP confirmation is told from the team's words.
    const phone = uniquePhone();
    const stopper = await lead(client, { phone });
    await say(client, { channel: 'sms', from: phone, text: 'STOP' });
    const stopped = await viewer.call('GET', `/console/api/leads/${stopper}/messages`);
    expect(stopped.body.messages.map((m) => [m.direction, m.purpose])).toEqual([
      ['inbound', 'conversation'],
      ['outbound', 'stop_confirmation'],
    ]);
    // Another organization's lead is missing, as everywhere.
    const other = await consoleClient(ts, 'viewer', `other-${randomUUID().slice(0, 8)}`);
    expect((await other.call('GET', `/console/api/leads/${id}/messages`)).status).toBe(404);
  });

  it('lists conversations only, with the true count under the filters, and pages through them', async () => {
    const ts = ctx();
    const { client, viewer } = await org(ts);
    const talkers: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const phone = uniquePhone();
      talkers.push(await lead(client, { firstName: `Talker${i}`, phone }));
      await say(client, { channel: 'sms', from: phone, text: `hello ${i}` });
    }
    for (let i = 0; i < 3; i += 1) await lead(client, { firstName: `Silent${i}` });
    const mailer = `mia.${randomUUID().slice(0, 6)}@example.com`;
    const mia = await lead(client, { firstName: 'Mia', email: mailer, phone: undefined });
    await say(client, { channel: 'email', from: mailer, text: 'by email' });

    const first = await viewer.call('GET', '/console/api/inbox?limit=4');
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(6);
    expect(first.body.conversations).toHaveLength(4);
    expect(first.body.nextToken).toEqual(expect.any(String));
    const second = await viewer.call('GET', `/console/api/inbox?limit=4&nextToken=${first.body.nextToken}`);
    expect(second.body.total).toBe(6);
    expect(second.body.nextToken).toBeNull();
    const seen = [...first.body.conversations, ...second.body.conversations].map((c) => c.id);
    // Newest activity first, each conversation once, no silent lead.
    expect(seen).toEqual([mia, ...[...talkers].reverse()]);

    const byEmail = await viewer.call('GET', '/console/api/inbox?channel=email');
    expect(byEmail.body).toMatchObject({ total: 1, nextToken: null });
    expect(byEmail.body.conversations.map((c) => c.id)).toEqual([mia]);
    const named = await viewer.call('GET', '/console/api/inbox?search=talker');
    expect(named.body.total).toBe(5);
    expect((await viewer.call('GET', '/console/api/inbox?needsAttention=true')).body.total).toBe(6);
    expect((await viewer.call('GET', '/console/api/inbox?channel=fax')).status).toBe(400);
    expect((await viewer.call('GET', '/console/api/inbox?limit=501')).status).toBe(400);
    expect((await request(ts, 'GET', '/console/api/inbox')).status).toBe(401);
  });
});

describeEachDialect(
  'webhook deliveries filtered by lead',
  (ctx) => {
    const receiver = receiverPool();

    it("lists only the deliveries of one lead's events, paged, beside the event and status filters", async () => {
      const ts = ctx();
      const { client } = await org(ts);
      const r = await receiver();
      const endpoint = await registerEndpoint(client, r, ['optOut']);
      const a = await lead(client);
      const b = await lead(client);
      for (const id of [a, b]) expect((await client.post(`/leads/${id}/unsubscribe`, {})).status).toBe(200);
      // Two optOut events each (sms and voice).
      await r.until(() => r.acknowledged.length === 4);
      type Listed = { deliveries: { id: string }[]; nextToken: string | null };
      const list = async (q: string) => {
        const res = await client.get(`/webhooks/${endpoint.id}/deliveries?${q}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body as Listed;
      };
      type One = { body: { data: { leadId: string } } };
      const leadsOf = async (listed: { id: string }[]) =>
        Promise.all(
          listed.map(
            async (d) =>
              ((await client.get(`/webhooks/${endpoint.id}/deliveries/${d.id}`)).body as unknown as One).body.data
                .leadId,
          ),
        );

      const ofA = await list(`leadId=${a}`);
      expect(ofA.deliveries).toHaveLength(2);
      expect(await leadsOf(ofA.deliveries)).toEqual([a, a]);
      const page1 = await list(`leadId=${b}&limit=1`);
      expect(page1.deliveries).toHaveLength(1);
      const page2 = await list(`leadId=${b}&limit=1&nextToken=${page1.nextToken}`);
      expect(page2.deliveries).toHaveLength(1);
      expect(page2.deliveries[0]!.id).not.toBe(page1.deliveries[0]!.id);
      expect(await leadsOf([...page1.deliveries, ...page2.deliveries])).toEqual([b, b]);
      expect((await list(`leadId=${b}&status=failed`)).deliveries).toEqual([]);
      expect((await list(`leadId=${b}&eventType=leadTagged`)).deliveries).toEqual([]);
      expect((await list(`leadId=${randomUUID()}`)).deliveries).toEqual([]);
      // A replay is a delivery of the same event: listed under the same lead.
      const replayed = await client.post(`/webhooks/${endpoint.id}/deliveries/${ofA.deliveries[0]!.id}/replay`);
      expect(replayed.status).toBe(202);
      expect((await list(`leadId=${a}`)).deliveries).toHaveLength(3);
      expect((await list(`leadId=${b}`)).deliveries).toHaveLength(2);
      const bad = await client.get(`/webhooks/${endpoint.id}/deliveries?leadId=${encodeURIComponent('%')}`);
      expect(bad.status).toBe(400);
    });

    it("keeps each attempt's answer of a delivery, for the console's admins", async () => {
      const ts = ctx();
      const name = `answers-${randomUUID().slice(0, 8)}`;
      const admin = await consoleClient(ts, 'admin', name);
      const viewer = await consoleClient(ts, 'viewer', name);
      const keyed = await ts.clientWithScopes([...SCOPES], name);
      const seen = new Map<string, number>();
      const r = await receiver((req, res) => {
        const id = String(req.headers['webhook-id']);
        const n = (seen.get(id) ?? 0) + 1;
        seen.set(id, n);
        if (n === 1) res.writeHead(500).end();
        else if (n === 2) res.writeHead(503).end();
        else res.writeHead(200).end('{}');
      });
      const endpoint = await registerEndpoint(keyed, r, ['optOut']);
      const id = await lead(keyed);
      expect((await keyed.post(`/leads/${id}/unsubscribe`, { channels: ['sms'] })).status).toBe(200);
      await r.until(() => r.acknowledged.length === 1);
      const [delivery] = (
        await until(
          () => keyed.get(`/webhooks/${endpoint.id}/deliveries`),
          (res) => (res.body as { deliveries: { status: string }[] }).deliveries[0]?.status === 'succeeded',
        )
      ).body.deliveries as { id: string; attempts: number }[];
      expect(delivery!.attempts).toBe(3);
      const path = `/console/api/webhooks/${endpoint.id}/deliveries/${delivery!.id}/answers` as const;
      const answers = await admin.call('GET', path);
      expect(answers.status).toBe(200);
      expect(answers.body.answers.map((a) => a.statusCode)).toEqual([500, 503, 200]);
      expect(answers.body.answers.every((a) => !Number.isNaN(Date.parse(a.at)))).toBe(true);
      // /v1 keeps its shape: the last answer only.
      const one = (await keyed.get(`/webhooks/${endpoint.id}/deliveries/${delivery!.id}`)).body as object;
      expect(Object.keys(one)).not.toContain('answers');
      expect((await viewer.call('GET', path)).status).toBe(403);
      expect(
        (await admin.call('GET', `/console/api/webhooks/${endpoint.id}/deliveries/${randomUUID()}/answers`)).status,
      ).toBe(404);
      // Another organization's admin finds no such endpoint.
      const stranger = await consoleClient(ts, 'admin', `stranger-${randomUUID().slice(0, 8)}`);
      expect((await stranger.call('GET', path)).status).toBe(404);
    });
  },
  FAST_WEBHOOKS,
);
