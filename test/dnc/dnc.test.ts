import { expect, it } from 'vitest';
import { createLead, describeEachDialect, uniquePhone, type Client } from '../support/harness.js';
import { outboxFor, outboxOfType } from '../support/events.js';

const ADDED = { message: 'Phone number successfully added to DNC list' };
const REMOVED = { message: 'Phone number removed from DNC list' };
const notListed = (phone: string) => `Resource not found: DncEntry with phone ${phone}`;

/** "+14155550123" -> "(415) 555-0123": the same number as a person would type it. */
const national = (e164: string) => `(${e164.slice(2, 5)}) ${e164.slice(5, 8)}-${e164.slice(8)}`;

const check = async (client: Client, phone: string) =>
  (await client.get(`/dnc/check?phone=${encodeURIComponent(phone)}`)).body;

async function listAll(client: Client, limit: number): Promise<{ pages: number[]; phones: string[]; last: unknown }> {
  const pages: number[] = [];
  const phones: string[] = [];
  let token: string | null = null;
  do {
    const page: `/dnc?${string}` = `/dnc?limit=${limit}${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`;
    const res = await client.get(page);
    expect(res.status).toBe(200);
    pages.push(res.body.entries.length);
    phones.push(...res.body.entries.map((e) => e.phone));
    token = res.body.nextToken;
  } while (token !== null && pages.length < 20);
  return { pages, phones, last: token };
}

describeEachDialect('Do Not Contact', (ctx) => {
  it("registers a lead's number: exact text, check and lead details show it, subscriptions and AI untouched", async () => {
    const ts = ctx();
    const phone = uniquePhone();
    const id = await createLead(ts.acme, { phone });
    expect((await ts.acme.get(`/leads/${id}`)).body.isDoNotContact).toBe(false);
    const res = await ts.acme.post('/dnc/register', { phone });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(ADDED);
    expect(await check(ts.acme, phone)).toEqual({ phone, isDoNotContact: true });
    const lead = (await ts.acme.get(`/leads/${id}`)).body;
    expect(lead.isDoNotContact).toBe(true);
    expect(lead.subscriptions).toEqual({ sms: 'subscribed', voice: 'subscribed', email: 'unavailable' });
    expect(lead.isUnsubscribed).toBe(false);
    expect(lead.isAiOn).toBe(true);
    expect(await outboxFor(ts, id, 'optOut')).toHaveLength(0);
  });

  it("emits one doNotContact event naming the org's lead with that number", async () => {
    const ts = ctx();
    const phone = uniquePhone();
    const id = await createLead(ts.acme, { phone, externalLeadId: 'crm-7' });
    await ts.acme.post('/dnc/register', { phone });
    const events = (await outboxOfType(ts, 'doNotContact')).filter((e) => e.data.phone === phone);
    expect(events.map((e) => e.data)).toEqual([
      { phone, source: 'api', leadId: id, externalLeadId: 'crm-7', email: null, optOutMessage: null },
    ]);
  });

  it('normalises input: "(415) ..." and "+1415..." are one entry, registered once, with one event', async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(['dnc:read', 'dnc:write'], 'dnc-normalise');
    const phone = uniquePhone();
    for (const form of [national(phone), phone, `1-${national(phone)}`]) {
      const res = await org.post('/dnc/register', { phone: form });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(ADDED);
    }
    const list = (await org.get('/dnc')).body;
    expect(list.nextToken).toBeNull();
    expect(list.entries).toHaveLength(1);
    expect(list.entries[0]).toEqual({ phone, source: 'api', createdAt: expect.any(String) });
    expect(new Date(list.entries[0]!.createdAt).toISOString()).toBe(list.entries[0]!.createdAt);
    expect(await check(org, national(phone))).toEqual({ phone, isDoNotContact: true });
    const events = await outboxOfType(ts, 'doNotContact', 'dnc-normalise');
    expect(events.map((e) => e.data)).toEqual([
      { phone, source: 'api', leadId: null, externalLeadId: null, email: null, optOutMessage: null },
    ]);
  });

  it('20 concurrent registers of one number give one entry and exactly one event', async () => {
    const ts = ctx();
    const phone = uniquePhone();
    const results = await Promise.all(Array.from({ length: 20 }, () => ts.acme.post('/dnc/register', { phone })));
    expect(results.every((r) => r.status === 200 && r.body.message === ADDED.message)).toBe(true);
    expect((await outboxOfType(ts, 'doNotContact')).filter((e) => e.data.phone === phone)).toHaveLength(1);
  });

  it('removes a number: exact text, check and lead go back to false; removing again is the contract 404', async () => {
    const ts = ctx();
    const phone = uniquePhone();
    const id = await createLead(ts.acme, { phone });
    await ts.acme.post('/dnc/register', { phone });
    const res = await ts.acme.post('/dnc/remove', { phone: national(phone) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(REMOVED);
    expect(await check(ts.acme, phone)).toEqual({ phone, isDoNotContact: false });
    expect((await ts.acme.get(`/leads/${id}`)).body.isDoNotContact).toBe(false);
    const again = await ts.acme.post('/dnc/remove', { phone: national(phone) });
    expect(again.status).toBe(404);
    expect(again.body.message).toBe(notListed(phone));
  });

  it('answers 400 naming phone for an invalid, missing or extra field, and lists nothing', async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(['dnc:read', 'dnc:write'], 'dnc-invalid');
    for (const path of ['/dnc/register', '/dnc/remove'] as const) {
      const bad = await org.post(path, { phone: '12' });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe('phone is not a valid phone number');
      const missing = await org.post(path, {});
      expect(missing.status).toBe(400);
      expect(missing.body.message).toBe('phone is required');
      const extra = await org.post(path, { phone: uniquePhone(), source: 'manual' });
      expect(extra.status).toBe(400);
      expect(extra.body.message).toBe('source is not allowed');
    }
    const checkBad = await org.get('/dnc/check?phone=abc');
    expect(checkBad.status).toBe(400);
    expect(checkBad.body.message).toBe('phone is not a valid phone number');
    expect((await org.get('/dnc/check')).body.message).toBe('phone is required');
    expect((await org.get('/dnc')).body).toEqual({ entries: [], nextToken: null });
    expect(await outboxOfType(ts, 'doNotContact', 'dnc-invalid')).toHaveLength(0);
  });

  it('pages the list by phone: 25 entries, limit 10 -> 10, 10, 5, no duplicates or gaps', async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(['dnc:read', 'dnc:write'], 'dnc-pages');
    const phones = Array.from({ length: 25 }, () => uniquePhone());
    // Registered in reverse so that insertion order is not what the list is ordered by.
    for (const p of [...phones].reverse()) expect((await org.post('/dnc/register', { phone: p })).status).toBe(200);
    const { pages, phones: listed, last } = await listAll(org, 10);
    expect(pages).toEqual([10, 10, 5]);
    expect(last).toBeNull();
    expect(listed).toEqual([...phones].sort());
    const all = (await org.get('/dnc')).body;
    expect(all.entries).toHaveLength(25);
    expect(all.nextToken).toBeNull();
  });

  it('defaults to pages of 100', async () => {
    const ts = ctx();
    const org = await ts.clientWithScopes(['dnc:read', 'dnc:write'], 'dnc-default-page');
    const phones = Array.from({ length: 101 }, () => uniquePhone());
    for (let i = 0; i < phones.length; i += 20) {
      await Promise.all(phones.slice(i, i + 20).map((phone) => org.post('/dnc/register', { phone })));
    }
    const first = (await org.get('/dnc')).body;
    expect(first.entries).toHaveLength(100);
    expect(first.nextToken).toEqual(expect.any(String));
    const second = (await org.get(`/dnc?nextToken=${encodeURIComponent(first.nextToken!)}`)).body;
    expect(second.entries.map((e: { phone: string }) => e.phone)).toEqual([[...phones].sort()[100]]);
    expect(second.nextToken).toBeNull();
  });

  it.each(['0', '1001', 'abc', '2.5'])('rejects limit=%s with a 400 naming limit', async (limit) => {
    const res = await ctx().acme.get(`/dnc?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^limit /);
  });

  it.each([
    ['garbage', '!!!not-a-cursor'],
    ['a leads cursor (uuid)', Buffer.from('0190a4c2-0000-7000-8000-000000000000').toString('base64url')],
    ['a phone without +', Buffer.from('14155550100').toString('base64url')],
  ])('rejects a nextToken that is %s with a 400', async (_name, token) => {
    const res = await ctx().acme.get(`/dnc?nextToken=${encodeURIComponent(token)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('nextToken is not a valid cursor');
  });

  it("keeps each organization's list to itself", async () => {
    const ts = ctx();
    const phone = uniquePhone();
    const acmeLead = await createLead(ts.acme, { phone });
    await ts.acme.post('/dnc/register', { phone });

    expect(await check(ts.beta, phone)).toEqual({ phone, isDoNotContact: false });
    const betaList = (await ts.beta.get('/dnc?limit=1000')).body.entries.map((e: { phone: string }) => e.phone);
    expect(betaList).not.toContain(phone);
    // beta removing acme's entry gets exactly what removing an unlisted number gets.
    const unlisted = uniquePhone();
    const missing = await ts.beta.post('/dnc/remove', { phone: unlisted });
    const foreign = await ts.beta.post('/dnc/remove', { phone });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ ...missing.body, message: notListed(phone) });
    expect(missing.body.message).toBe(notListed(unlisted));
    expect(await check(ts.acme, phone)).toEqual({ phone, isDoNotContact: true });

    // beta's own entry for the same number is separate, and its event names no lead of acme's.
    expect((await ts.beta.post('/dnc/register', { phone })).body).toEqual(ADDED);
    const betaEvents = (await outboxOfType(ts, 'doNotContact', 'beta')).filter((e) => e.data.phone === phone);
    expect(betaEvents.map((e) => e.data)).toEqual([
      { phone, source: 'api', leadId: null, externalLeadId: null, email: null, optOutMessage: null },
    ]);
    const acmeEvents = (await outboxOfType(ts, 'doNotContact')).filter((e) => e.data.phone === phone);
    expect(acmeEvents.map((e) => e.data.leadId)).toEqual([acmeLead]);
    expect((await ts.beta.post('/dnc/remove', { phone })).status).toBe(200);
    expect(await check(ts.acme, phone)).toEqual({ phone, isDoNotContact: true });
  });

  it('answers 403 Forbidden to keys without the DNC scope the route needs, and changes nothing', async () => {
    const ts = ctx();
    const phone = uniquePhone();
    const leadsOnly = await ts.clientWithScopes(['leads:read']);
    const readOnly = await ts.clientWithScopes(['dnc:read']);
    const attempts = [
      () => leadsOnly.post('/dnc/register', { phone }),
      () => leadsOnly.post('/dnc/remove', { phone }),
      () => leadsOnly.get('/dnc'),
      () => leadsOnly.get(`/dnc/check?phone=${encodeURIComponent(phone)}`),
      () => readOnly.post('/dnc/register', { phone }),
      () => readOnly.post('/dnc/remove', { phone }),
    ];
    for (const attempt of attempts) {
      const res = await attempt();
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('Forbidden');
    }
    expect(await check(readOnly, phone)).toEqual({ phone, isDoNotContact: false });
    expect((await readOnly.get('/dnc')).status).toBe(200);
    expect((await outboxOfType(ts, 'doNotContact')).filter((e) => e.data.phone === phone)).toHaveLength(0);
  });
});
