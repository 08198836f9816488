import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { insertTag } from '../../src/lead-records/leads.repository.js';
import { insertMessage } from '../../src/messages/messages.repository.js';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { newId } from '../../src/platform/ids.js';
import { describeEachDialect, live, uniquePhone, type Client, type TestServer } from '../support/harness.js';

/** GET /v1/leads with the console's parameters (lead-search.service.ts), each in its own organization. */
async function freshOrg(ts: TestServer): Promise<Client> {
  return ts.clientWithScopes([...SCOPES], `search-${randomUUID().slice(0, 8)}`);
}

async function lead(client: Client, fields: Record<string, unknown>): Promise<string> {
  const res = await client.post('/leads/create', { lastName: '', phone: uniquePhone(), isAiOn: false, ...fields });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id;
}

const ids = (res: { body: { leads: { id: string }[] } }) => res.body.leads.map((l) => l.id);

describeEachDialect('GET /v1/leads: search, filters and newest activity first', (ctx) => {
  it('searches by name prefix (case-insensitive), first and last name, phone prefix, email prefix and exact externalLeadId', async () => {
    const ts = ctx();
    const c = await freshOrg(ts);
    const ann = await lead(c, {
      firstName: 'Annabel',
      lastName: 'Lee',
      phone: '+14155550101',
      email: 'annabel@example.com',
      externalLeadId: 'crm-77',
    });
    const anne = await lead(c, { firstName: 'anne', lastName: 'Smith', phone: '+14165550102' });
    const bob = await lead(c, { firstName: 'Bob', lastName: 'Annan', phone: '+12125550103', email: 'bob@sample.org' });
    const q = async (search: string) => ids(await c.get(`/leads?search=${encodeURIComponent(search)}`)).sort();
    expect(await q('ann')).toEqual([ann, anne, bob].sort());
    expect(await q('ANNE')).toEqual([anne]);
    expect(await q('annabel l')).toEqual([ann]);
    expect(await q('anne lee')).toEqual([]);
    expect(await q('+1415')).toEqual([ann]);
    expect(await q('(415) 555-0101')).toEqual([ann]);
    expect(await q('416')).toEqual([anne]);
    expect(await q('bob@')).toEqual([bob]);
    expect(await q('ANNABEL@EX')).toEqual([ann]);
    expect(await q('crm-77')).toEqual([ann]);
    expect(await q('crm-7')).toEqual([]);
    expect(await q('zed')).toEqual([]);
    // Nothing like a LIKE pattern: % and _ are plain characters.
    expect(await q('%')).toEqual([]);
  });

  it('filters by aiOn, tag and profile; the unfiltered listing is unchanged (no lastMessage field)', async () => {
    const ts = ctx();
    const c = await freshOrg(ts);
    const on = await lead(c, { firstName: 'On', isAiOn: true });
    const off = await lead(c, { firstName: 'Off' });
    expect(ids(await c.get('/leads?aiOn=true'))).toEqual([on]);
    expect(ids(await c.get('/leads?aiOn=false'))).toEqual([off]);
    expect((await c.post('/customerProfiles', { name: 'sales' })).status).toBeLessThan(300);
    expect((await c.post(`/leads/${off}/switchCustomerProfile`, { profile: 'sales' })).status).toBe(200);
    expect(ids(await c.get('/leads?profile=sales'))).toEqual([off]);
    expect(ids(await c.get('/leads?profile=default'))).toEqual([on]);
    const plain = await c.get('/leads');
    expect(plain.body.leads[0]).not.toHaveProperty('lastMessage');
    expect(plain.body.leads[0]).not.toHaveProperty('needsAttention');
    const filtered = await c.get('/leads?sort=created');
    expect(filtered.body.leads.map((l: { id: string }) => l.id)).toEqual(ids(plain));
    expect(filtered.body.leads[0]).toMatchObject({ lastMessage: null, needsAttention: false });
    expect((await c.get('/leads?tag=nope')).body.leads).toEqual([]);
    const org = (
      await ts.server.store.db
        .selectFrom('leads')
        .select('organization_id')
        .where('id', '=', on)
        .executeTakeFirstOrThrow()
    ).organization_id;
    await insertTag(ts.server.store.db, org, {
      id: newId(),
      lead_id: on,
      name: 'VIP',
      condition: 'spends',
      created_at: new Date().toISOString(),
    });
    expect(ids(await c.get('/leads?tag=VIP'))).toEqual([on]);
    expect(ids(await c.get('/leads?tag=VIP&aiOn=false'))).toEqual([]);
  });

  it('orders by newest activity, leads without activity last; lastMessage and needsAttention follow the conversation; pages continue', async () => {
    const ts = ctx();
    const c = await freshOrg(ts);
    const quiet = await lead(c, { firstName: 'Quiet' });
    const first = await lead(c, { firstName: 'First', phone: uniquePhone() });
    const second = await lead(c, { firstName: 'Second', phone: uniquePhone() });
    const phoneOf = async (id: string) => (await c.get(`/leads/${id}`)).body.phone as string;
    expect(
      (await c.post('/inbound', { channel: 'sms', from: await phoneOf(first), text: 'hello from first' })).status,
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 5));
    expect(
      (await c.post('/inbound', { channel: 'sms', from: await phoneOf(second), text: 'hello from second' })).status,
    ).toBe(200);

    const inbox = await c.get('/leads?sort=lastActivity');
    expect(inbox.status).toBe(200);
    expect(ids(inbox)).toEqual([second, first, quiet]);
    expect(inbox.body.leads[0]).toMatchObject({
      lastActivityAt: expect.any(String),
      lastMessage: {
        text: 'hello from second',
        direction: 'inbound',
        channel: 'sms',
        at: expect.any(String),
        isAiGenerated: false,
      },
      needsAttention: true,
    });
    expect(inbox.body.leads[2]).toMatchObject({ lastMessage: null, needsAttention: false });
    expect(ids(await c.get('/leads?needsAttention=true&sort=lastActivity'))).toEqual([second, first]);
    expect(ids(await c.get('/leads?needsAttention=false'))).toEqual([quiet]);

    // A person answers the first: it no longer needs attention.
    const sent = await c.post(`/leads/${first}/sendMessage`, { message: 'hi, a human here', sendWhenOff: true });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(ids(await c.get('/leads?needsAttention=true'))).toEqual([second]);

    // One lead a page, through both phases (with activity, then without).
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const res: { status: number; body: { leads: { id: string }[]; nextToken: string | null } } = await c.get(
        `/leads?sort=lastActivity&limit=1${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      token = res.body.nextToken;
    } while (token && seen.length < 10);
    expect(seen.length).toBe(3);
    expect(new Set(seen)).toEqual(new Set([first, second, quiet]));
    expect(seen.at(-1)).toBe(quiet);
  });

  it('needsAttention: a handoff (AI off, its message last) needs it; a lead a person answered, one whose AI still talks, one without messages do not', async () => {
    const ts = ctx();
    const c = await freshOrg(ts);
    const handedOff = await lead(c, { firstName: 'Handed' });
    const talking = await lead(c, { firstName: 'Talking', isAiOn: true });
    const answered = await lead(c, { firstName: 'Answered' });
    const quiet = await lead(c, { firstName: 'Quiet' });
    const db = ts.server.store.db;
    const org = (
      await db.selectFrom('leads').select('organization_id').where('id', '=', quiet).executeTakeFirstOrThrow()
    ).organization_id;
    const say = (leadId: string, direction: 'inbound' | 'outbound', ai: 0 | 1, text: string) =>
      insertMessage(db, org, {
        id: newId(),
        lead_id: leadId,
        channel: 'sms',
        direction,
        owner: direction === 'inbound' ? 'lead' : 'user',
        text,
        is_ai_generated: ai,
        status: direction === 'inbound' ? 'received' : 'sent',
        status_reason: null,
        scheduled_at: null,
        created_at: new Date().toISOString(),
      });
    await say(handedOff, 'outbound', 1, 'let me get a person for you');
    await say(talking, 'outbound', 1, 'how can I help?');
    await say(answered, 'inbound', 0, 'hello?');
    await say(answered, 'outbound', 0, 'a person here');

    expect(ids(await c.get('/leads?needsAttention=true'))).toEqual([handedOff]);
    expect(ids(await c.get('/leads?needsAttention=false'))).toEqual([talking, answered, quiet]);
    const listed = (await c.get('/leads?sort=created')).body.leads as {
      id: string;
      needsAttention: boolean;
      lastMessage: { text: string; isAiGenerated: boolean } | null;
    }[];
    expect(
      listed.map((l) => [l.id, l.needsAttention, l.lastMessage && [l.lastMessage.text, l.lastMessage.isAiGenerated]]),
    ).toEqual([
      [handedOff, true, ['let me get a person for you', true]],
      [talking, false, ['how can I help?', true]],
      [answered, false, ['a person here', false]],
      [quiet, false, null],
    ]);
  });

  it('hasMessages lists conversations only (or only leads without any); lastMessage says when Parley itself wrote it', async () => {
    const ts = ctx();
    const c = await freshOrg(ts);
    const phone = uniquePhone();
    const stopped = await lead(c, { firstName: 'Stopped', phone });
    const quiet = await lead(c, { firstName: 'Quiet' });
    // STOP: the lead's message, then Parley's confirmation (a stop_confirmation, whatever the AI setting).
    expect((await c.post('/inbound', { channel: 'sms', from: phone, text: 'STOP' })).status).toBe(200);
    expect(ids(await c.get('/leads?hasMessages=true'))).toEqual([stopped]);
    expect(ids(await c.get('/leads?hasMessages=false'))).toEqual([quiet]);
    const row = live((await c.get('/leads?hasMessages=true')).body.leads[0]);
    expect(row.lastMessage).toMatchObject({
      direction: 'outbound',
      purpose: 'stop_confirmation',
      isAiGenerated: false,
    });
    // On its way (queued, scheduled, sending or sent, as the worker gets to it), never refused.
    expect(['blocked', 'failed']).not.toContain(row.lastMessage!.status);
    expect(row.lastMessage!.status).toEqual(expect.any(String));
    // A send the gate refuses is the last message, and says so.
    const refused = await c.post(`/leads/${stopped}/sendMessage`, {
      message: 'Still there?',
      channel: 'sms',
      sendWhenOff: true,
    });
    expect(refused.body.status).toBe('blocked');
    const after = live((await c.get('/leads?hasMessages=true')).body.leads[0]);
    expect(after.lastMessage).toMatchObject({ text: 'Still there?', status: 'blocked' });
    expect((await c.get('/leads?hasMessages=maybe')).status).toBe(400);
  });

  it('refuses mixed listings, bad cursors and bad values with clean 400s', async () => {
    const ts = ctx();
    const c = await freshOrg(ts);
    for (const query of [
      'sort=newest',
      'aiOn=maybe',
      'needsAttention=2',
      'search=',
      'sort=lastActivity&createdSince=2020-01-01T00:00:00Z',
      'sort=lastActivity&nextToken=abc',
      'search=x&nextToken=' + Buffer.from('{"s":"a","i":"x"}').toString('base64url'),
    ]) {
      const res = await c.get(`/leads?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toEqual(expect.any(String));
    }
  });
});
