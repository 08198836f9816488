import { describe, expect, it } from 'vitest';
import { effectiveDelay } from '../../src/profiles/switch.service.js';
import { createLead, describeEachDialect, type TestServer } from '../support/harness.js';

const OK = 'Switched profile successfully.';
const MISSING_LEAD = '00000000-0000-7000-8000-000000000000';

async function leadRow(ts: TestServer, id: string) {
  return ts.server.store.db.selectFrom('leads').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('effectiveDelay', () => {
  it.each([
    [{}, { sendMessage: false, messageDelayHours: 0, messageDelayMins: 0, delayMs: 0 }],
    [{ sendMessage: true }, { sendMessage: true, messageDelayHours: 0, messageDelayMins: 0, delayMs: 0 }],
    [{ messageDelayHours: 2 }, { sendMessage: false, messageDelayHours: 2, messageDelayMins: 0, delayMs: 7_200_000 }],
    [{ messageDelayMins: 30 }, { sendMessage: false, messageDelayHours: 0, messageDelayMins: 30, delayMs: 1_800_000 }],
    [
      { messageDelayHours: 1, messageDelayMins: 30 },
      { sendMessage: false, messageDelayHours: 1, messageDelayMins: 0, delayMs: 3_600_000 },
    ],
    [
      { messageDelayHours: 0, messageDelayMins: 45 },
      { sendMessage: false, messageDelayHours: 0, messageDelayMins: 0, delayMs: 0 },
    ],
  ])('%j -> %j', (input, expected) => {
    expect(effectiveDelay(input)).toEqual(expected);
  });
});

describeEachDialect('POST /leads/{id}/switchCustomerProfile', (ctx) => {
  it('switches the profile and answers the contract body with the defaults false, 0, 0', async () => {
    const ts = ctx();
    await ts.acme.post('/customerProfiles', { name: 'sales' });
    const id = await createLead(ts.acme);
    const before = await leadRow(ts, id);
    await new Promise((r) => setTimeout(r, 5));
    const res = await ts.acme.post(`/leads/${id}/switchCustomerProfile`, { profile: 'sales' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: OK, sendMessage: false, messageDelayHours: 0, messageDelayMins: 0 });
    expect((await ts.acme.get(`/leads/${id}`)).body.customerProfile).toBe('sales');
    const after = await leadRow(ts, id);
    expect(after.updated_at > before.updated_at).toBe(true);
    expect(after.memory_cleared_at).toBeNull();
  });

  it.each([
    [{ sendMessage: true }, { sendMessage: true, messageDelayHours: 0, messageDelayMins: 0 }],
    [
      { sendMessage: true, messageDelayHours: 3 },
      { sendMessage: true, messageDelayHours: 3, messageDelayMins: 0 },
    ],
    [
      { sendMessage: true, messageDelayMins: 15 },
      { sendMessage: true, messageDelayHours: 0, messageDelayMins: 15 },
    ],
    [
      { sendMessage: true, messageDelayHours: 2, messageDelayMins: 15 },
      { sendMessage: true, messageDelayHours: 2, messageDelayMins: 0 },
    ],
    [
      { messageDelayHours: 0, messageDelayMins: 15 },
      { sendMessage: false, messageDelayHours: 0, messageDelayMins: 0 },
    ],
    [
      { sendMessage: false, messageDelayMins: 5 },
      { sendMessage: false, messageDelayHours: 0, messageDelayMins: 5 },
    ],
  ])('echoes the effective values for %j', async (extra, expected) => {
    const { acme } = ctx();
    if ((await acme.get('/customerProfiles/greeter')).status === 404) {
      expect(
        (await acme.post('/customerProfiles', { name: 'greeter', openingMessage: 'Hi {{firstName}}' })).status,
      ).toBe(201);
    }
    const id = await createLead(acme);
    const res = await acme.post(`/leads/${id}/switchCustomerProfile`, { profile: 'greeter', ...extra });
    expect(res.status).toBe(200);
    // The documented four fields, exactly; Parley adds `opening` only when a message was asked for.
    const { opening, ...documented } = res.body;
    expect(documented).toEqual({ message: OK, ...expected });
    if (expected.sendMessage) expect(opening).toMatchObject({ status: 'scheduled', reason: null });
    else expect(opening).toBeUndefined();
  });

  it('clearMemory sets the memory mark to now and keeps the message history', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const lead = await leadRow(ts, id);
    const messageId = '00000000-0000-7000-8000-00000000abcd';
    await ts.server.store.db
      .insertInto('messages')
      .values({
        organization_id: lead.organization_id,
        id: messageId,
        lead_id: id,
        channel: 'sms',
        direction: 'inbound',
        owner: 'lead',
        text: 'hello',
        is_ai_generated: 0,
        status: 'received',
        status_reason: null,
        scheduled_at: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    const started = new Date().toISOString();
    const res = await ts.acme.post(`/leads/${id}/switchCustomerProfile`, { profile: 'default', clearMemory: true });
    expect(res.status).toBe(200);
    const after = await leadRow(ts, id);
    expect(after.memory_cleared_at).not.toBeNull();
    expect(after.memory_cleared_at! >= started).toBe(true);
    expect(after.memory_cleared_at).toBe(after.updated_at);
    const kept = await ts.server.store.db.selectFrom('messages').select('id').where('lead_id', '=', id).execute();
    expect(kept.map((m) => m.id)).toEqual([messageId]);
  });

  it('clearMemory false (or absent) leaves an earlier memory mark alone', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    await ts.acme.post(`/leads/${id}/switchCustomerProfile`, { profile: 'default', clearMemory: true });
    const mark = (await leadRow(ts, id)).memory_cleared_at;
    expect(mark).not.toBeNull();
    await new Promise((r) => setTimeout(r, 5));
    await ts.acme.post(`/leads/${id}/switchCustomerProfile`, { profile: 'default', clearMemory: false });
    await ts.acme.post(`/leads/${id}/switchCustomerProfile`, { profile: 'default' });
    expect((await leadRow(ts, id)).memory_cleared_at).toBe(mark);
  });

  it('404s an unknown profile with the contract text and leaves the lead unchanged', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const before = await leadRow(ts, id);
    const res = await ts.acme.post(`/leads/${id}/switchCustomerProfile`, {
      profile: 'Nope Profile',
      clearMemory: true,
    });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Resource not found: CustomerProfile with name Nope Profile');
    expect(await leadRow(ts, id)).toEqual(before);
  });

  it('404s an unknown lead with the contract text', async () => {
    const res = await ctx().acme.post(`/leads/${MISSING_LEAD}/switchCustomerProfile`, { profile: 'default' });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(`Resource not found: Lead with id ${MISSING_LEAD}`);
  });

  it.each([
    ['no profile', {}, /^profile is required$/],
    ['an empty profile', { profile: '' }, /^profile /],
    ['negative hours', { profile: 'default', messageDelayHours: -1 }, /^messageDelayHours /],
    ['fractional minutes', { profile: 'default', messageDelayMins: 1.5 }, /^messageDelayMins /],
    ['hours as a string', { profile: 'default', messageDelayHours: '2' }, /^messageDelayHours /],
    ['sendMessage as a string', { profile: 'default', sendMessage: 'yes' }, /^sendMessage /],
    ['clearMemory as a string', { profile: 'default', clearMemory: 'true' }, /^clearMemory /],
    ['a misspelt field', { profile: 'default', messageDelayMinutes: 5 }, /^messageDelayMinutes is not allowed$/],
  ])('rejects %s with a 400 naming the field and changes nothing', async (_what, body, message) => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const before = await leadRow(ts, id);
    const res = await ts.acme.post(`/leads/${id}/switchCustomerProfile`, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(await leadRow(ts, id)).toEqual(before);
  });

  it('gives a lead or profile of another organization the same 404 as a missing one', async () => {
    const ts = ctx();
    const { acme, beta } = ts;
    await acme.post('/customerProfiles', { name: 'acme-only' });
    const acmeLead = await createLead(acme);
    const missingLead = await beta.post(`/leads/${MISSING_LEAD}/switchCustomerProfile`, { profile: 'default' });
    const foreignLead = await beta.post(`/leads/${acmeLead}/switchCustomerProfile`, { profile: 'default' });
    expect(foreignLead.status).toBe(404);
    expect(foreignLead.body).toEqual(JSON.parse(JSON.stringify(missingLead.body).replaceAll(MISSING_LEAD, acmeLead)));

    const betaLead = await createLead(beta);
    const missingProfile = await beta.post(`/leads/${betaLead}/switchCustomerProfile`, { profile: 'never-made' });
    const foreignProfile = await beta.post(`/leads/${betaLead}/switchCustomerProfile`, { profile: 'acme-only' });
    expect(foreignProfile.status).toBe(404);
    expect(foreignProfile.body).toEqual(
      JSON.parse(JSON.stringify(missingProfile.body).replaceAll('never-made', 'acme-only')),
    );
    expect((await beta.get(`/leads/${betaLead}`)).body.customerProfile).toBe('default');
    expect((await leadRow(ts, acmeLead)).customer_profile).toBe('default');
  });

  it('answers 403 Forbidden to a leads:read key and leaves the lead alone', async () => {
    const ts = ctx();
    await ts.acme.post('/customerProfiles', { name: 'not-for-readers' });
    const id = await createLead(ts.acme);
    for (const scopes of [['leads:read'], ['profiles:read', 'profiles:write']] as const) {
      const key = await ts.clientWithScopes([...scopes]);
      const res = await key.post(`/leads/${id}/switchCustomerProfile`, { profile: 'not-for-readers' });
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('Forbidden');
    }
    expect((await leadRow(ts, id)).customer_profile).toBe('default');
  });

  it('never leaves a lead on a deleted profile when a switch races a delete', async () => {
    const ts = ctx();
    for (let i = 0; i < 8; i += 1) {
      const name = `race-${i}`;
      await ts.acme.post('/customerProfiles', { name });
      const id = await createLead(ts.acme);
      const [switched, deleted] = await Promise.all([
        ts.acme.post(`/leads/${id}/switchCustomerProfile`, { profile: name }),
        ts.acme.del(`/customerProfiles/${name}`),
      ]);
      const profile = (await leadRow(ts, id)).customer_profile;
      expect((await ts.acme.get(`/customerProfiles/${encodeURIComponent(profile)}`)).status).toBe(200);
      if (deleted.status === 200) expect(switched.status).toBe(404);
      else expect([deleted.status, switched.status]).toEqual([409, 200]);
    }
  });
});
