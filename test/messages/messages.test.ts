import { expect, it } from 'vitest';
import { insertMessage, type NewMessage } from '../../src/messages/messages.repository.js';
import { newId } from '../../src/platform/ids.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';

const MISSING = '00000000-0000-7000-8000-000000000000';

async function orgId(ts: TestServer, name: string): Promise<string> {
  const row = await ts.server.store.db
    .selectFrom('organizations')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * There is no send endpoint yet: messages go straight into the server's store.
 * Ids are made oldest first but inserted newest first, so a listing that
 * followed insertion order instead of id order would fail.
 */
async function addMessages(
  ts: TestServer,
  leadId: string,
  n: number,
  org = 'acme',
  over: Partial<NewMessage> = {},
): Promise<string[]> {
  const organizationId = await orgId(ts, org);
  const start = Date.parse('2025-01-01T00:00:00.000Z');
  const rows: NewMessage[] = Array.from({ length: n }, (_, i) => ({
    id: newId(),
    lead_id: leadId,
    channel: 'sms',
    direction: i % 2 === 0 ? 'outbound' : 'inbound',
    owner: i % 2 === 0 ? 'user' : 'lead',
    text: `message ${i}`,
    is_ai_generated: i % 2 === 0 ? 1 : 0,
    status: i % 2 === 0 ? 'sent' : 'received',
    status_reason: null,
    scheduled_at: null,
    created_at: new Date(start + i * 1000).toISOString(),
    ...over,
  }));
  await ts.server.store.db.transaction().execute(async (trx) => {
    for (const row of [...rows].reverse()) await insertMessage(trx, organizationId, row);
  });
  return rows.map((r) => r.id);
}

async function readAll(client: Client, leadId: string, limit: number) {
  const pages: number[] = [];
  const ids: string[] = [];
  let token: string | null = null;
  do {
    const page: `/leads/${string}/messages?${string}` = `/leads/${leadId}/messages?limit=${limit}${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`;
    const res = await client.get(page);
    expect(res.status).toBe(200);
    pages.push(res.body.messages.length);
    ids.push(...res.body.messages.map((m) => m.id));
    token = res.body.nextToken;
  } while (token !== null && pages.length < 20);
  return { pages, ids, last: token };
}

describeEachDialect('GET /leads/{id}/messages', (ctx) => {
  it('answers an empty history as {messages: [], nextToken: null}', async () => {
    const { acme } = ctx();
    const id = await createLead(acme);
    const res = await acme.get(`/leads/${id}/messages`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ messages: [], nextToken: null });
  });

  it('shows each message with content.text, owner, isAiGenerated, channel, direction, status, statusReason and scheduledTime', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const [out, inb] = await addMessages(ts, id, 2);
    const res = await ts.acme.get(`/leads/${id}/messages`);
    expect(res.body.messages).toEqual([
      {
        id: out,
        content: { text: 'message 0' },
        createdAt: '2025-01-01T00:00:00.000Z',
        owner: 'user',
        isAiGenerated: true,
        channel: 'sms',
        direction: 'outbound',
        status: 'sent',
        statusReason: null,
        statusCode: null,
        scheduledTime: null,
      },
      {
        id: inb,
        content: { text: 'message 1' },
        createdAt: '2025-01-01T00:00:01.000Z',
        owner: 'lead',
        isAiGenerated: false,
        channel: 'sms',
        direction: 'inbound',
        status: 'received',
        statusReason: null,
        statusCode: null,
        scheduledTime: null,
      },
    ]);
    expect(res.body.nextToken).toBeNull();
  });

  it('pages oldest first: 25 messages, limit 10 -> 10, 10, 5, no duplicates or gaps, null token at the end', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const ids = await addMessages(ts, id, 25);
    const { pages, ids: seen, last } = await readAll(ts.acme, id, 10);
    expect(pages).toEqual([10, 10, 5]);
    expect(last).toBeNull();
    expect(seen).toEqual(ids);
    expect(new Set(seen).size).toBe(25);
  });

  it('gives a null token on a last page that is exactly full, and an empty page after the last message', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const ids = await addMessages(ts, id, 4);
    const { pages, last } = await readAll(ts.acme, id, 2);
    expect(pages).toEqual([2, 2]);
    expect(last).toBeNull();
    const afterLast = Buffer.from(ids[3]!).toString('base64url');
    const res = await ts.acme.get(`/leads/${id}/messages?nextToken=${afterLast}`);
    expect(res.body).toEqual({ messages: [], nextToken: null });
  });

  it('defaults to (and allows at most) 1000 per page', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const ids = await addMessages(ts, id, 1001);
    for (const query of ['', '?limit=1000'] as const) {
      const first = (await ts.acme.get(`/leads/${id}/messages${query}`)).body;
      expect(first.messages).toHaveLength(1000);
      expect(first.messages[999]!.id).toBe(ids[999]);
      const rest = (await ts.acme.get(`/leads/${id}/messages?nextToken=${encodeURIComponent(first.nextToken!)}`)).body;
      expect(rest.messages.map((m: { id: string }) => m.id)).toEqual([ids[1000]]);
      expect(rest.nextToken).toBeNull();
    }
  });

  it("lists only this lead's messages of this organization", async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const other = await createLead(ts.acme);
    const mine = await addMessages(ts, id, 3);
    await addMessages(ts, other, 3);
    // A row under another organization with the same lead id must stay invisible.
    await addMessages(ts, id, 2, 'beta');
    const res = await ts.acme.get(`/leads/${id}/messages`);
    expect(res.body.messages.map((m: { id: string }) => m.id)).toEqual(mine);
  });

  it("404s an unknown lead with the contract text, and another organization's lead identically", async () => {
    const ts = ctx();
    const missing = await ts.beta.get(`/leads/${MISSING}/messages`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe(`Resource not found: Lead with id ${MISSING}`);
    const id = await createLead(ts.acme);
    await addMessages(ts, id, 2);
    const foreign = await ts.beta.get(`/leads/${id}/messages`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ ...missing.body, message: `Resource not found: Lead with id ${id}` });
  });

  it.each(['0', '1001', 'abc', '-1'])('rejects limit=%s with a 400 naming limit', async (limit) => {
    const { acme } = ctx();
    const id = await createLead(acme);
    const res = await acme.get(`/leads/${id}/messages?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^limit /);
  });

  it.each([
    ['garbage', '!!!not-a-cursor'],
    ['a raw uuid (not encoded)', '0190a4c2-0000-7000-8000-000000000000'],
    ['an encoded phone (a DNC cursor)', Buffer.from('+14155550100').toString('base64url')],
  ])('rejects a nextToken that is %s with a 400', async (_name, token) => {
    const { acme } = ctx();
    const id = await createLead(acme);
    const res = await acme.get(`/leads/${id}/messages?nextToken=${encodeURIComponent(token)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('nextToken is not a valid cursor');
  });

  it('answers 403 Forbidden to a key without leads:read', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const dncOnly = await ts.clientWithScopes(['dnc:read']);
    const res = await dncOnly.get(`/leads/${id}/messages`);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('Forbidden');
    const reader = await ts.clientWithScopes(['leads:read']);
    expect((await reader.get(`/leads/${id}/messages`)).status).toBe(200);
  });
});
