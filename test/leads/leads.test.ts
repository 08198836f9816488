import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { expectError, sleep } from '../support/assert.js';
import { outboxFor } from '../support/events.js';
import { createLead, describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';

const MISSING = '00000000-0000-7000-8000-000000000000';
let orgCounter = 0;

/** A client of a brand-new organization, so lists and counts see only this test's leads. */
async function freshOrg(ts: TestServer): Promise<Client> {
  orgCounter += 1;
  return ts.clientWithScopes([...SCOPES], `org-${orgCounter}-${randomUUID().slice(0, 8)}`);
}

async function orgId(ts: TestServer, name: string): Promise<string> {
  const org = await ts.server.store.db
    .selectFrom('organizations')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return org.id;
}

async function insertTag(ts: TestServer, org: string, leadId: string, name: string): Promise<string> {
  const id = randomUUID();
  await ts.server.store.db
    .insertInto('lead_tags')
    .values({
      organization_id: await orgId(ts, org),
      id,
      lead_id: leadId,
      name,
      condition: `${name} condition`,
      created_at: new Date().toISOString(),
    })
    .execute();
  return id;
}

describeEachDialect('leads', (ctx) => {
  describe('POST /leads/create', () => {
    it('answers the message and the new id, and normalises a national phone to E.164 (default country US)', async () => {
      const { acme } = ctx();
      const res = await acme.post('/leads/create', { firstName: 'Ann', lastName: 'Lee', phone: '(415) 555-0123' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Lead created successfully.', id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      const lead = (await acme.get(`/leads/${res.body.id}`)).body;
      expect(lead.phone).toBe('+14155550123');
      expect(lead.customerProfile).toBe('default');
    });

    it('accepts an email-only lead and keeps the given optional fields', async () => {
      const { acme } = ctx();
      const res = await acme.post('/leads/create', {
        firstName: 'Eve',
        email: 'eve@example.com',
        timeZone: 'America/Chicago',
        externalLeadId: 'crm-7',
        additionalInfo: { budget: 5000, nested: { a: [1, 'x', null] }, ok: true },
      });
      expect(res.status).toBe(200);
      const lead = (await acme.get(`/leads/${res.body.id}`)).body;
      expect(lead).toMatchObject({
        firstName: 'Eve',
        lastName: '',
        phone: null,
        email: 'eve@example.com',
        timeZone: 'America/Chicago',
        externalLeadId: 'crm-7',
        additionalInfo: { budget: 5000, nested: { a: [1, 'x', null] }, ok: true },
        subscriptions: { sms: 'unavailable', voice: 'unavailable', email: 'subscribed' },
      });
    });

    it('rejects an unparseable phone with a 400 naming phone', async () => {
      const res = await ctx().acme.post('/leads/create', { firstName: 'Ann', phone: 'call me maybe' });
      expectError(res, 400, 'phone is not a valid phone number');
    });

    it('rejects a lead with neither phone nor email', async () => {
      expectError(
        await ctx().acme.post('/leads/create', { firstName: 'Ann' }),
        400,
        'A lead needs a phone or an email',
      );
    });

    it('rejects a second lead with the same phone in one organization (409), in any spelling', async () => {
      const { acme } = ctx();
      await createLead(acme, { phone: '+14155550177' });
      const res = await acme.post('/leads/create', { firstName: 'Bob', phone: '415-555-0177' });
      expectError(res, 409, 'A lead with phone +14155550177 already exists');
    });

    it('lets exactly one of 10 concurrent creates with one phone win; the others are 409', async () => {
      const { acme } = ctx();
      const phone = uniquePhone();
      const results = await Promise.all(
        Array.from({ length: 10 }, () => acme.post('/leads/create', { firstName: 'Race', phone })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
      for (const r of results.filter((x) => x.status === 409))
        expectError(r, 409, `A lead with phone ${phone} already exists`);
    });

    it('allows the same phone in another organization', async () => {
      const { acme, beta } = ctx();
      const phone = uniquePhone();
      const a = await createLead(acme, { phone });
      const b = await createLead(beta, { phone });
      expect(a).not.toBe(b);
      expect((await beta.get(`/leads/${b}`)).body.phone).toBe(phone);
    });

    it.each([
      [
        'an unknown field',
        { firstName: 'A', phone: '+14155550100', favouriteColour: 'red' },
        'favouriteColour is not allowed',
      ],
      [
        'a read-only field',
        { firstName: 'A', phone: '+14155550100', subscriptions: {} },
        'subscriptions is not allowed',
      ],
      ['a missing firstName', { phone: '+14155550100' }, 'firstName is required'],
      ['a phone that is not a string', { firstName: 'A', phone: 4155550100 }, 'phone must be a string'],
      [
        'a malformed email',
        { firstName: 'A', email: 'not-an-email' },
        'email must be a valid email address, like ann@example.com',
      ],
    ])('rejects %s with a 400 naming the field', async (_name, body, message) => {
      expectError(await ctx().acme.post('/leads/create', body), 400, message);
    });

    it('404s an unknown customer profile with the contract text and creates nothing', async () => {
      const ts = ctx();
      const org = await freshOrg(ts);
      const res = await org.post('/leads/create', { firstName: 'A', phone: uniquePhone(), customerProfile: 'x' });
      expectError(res, 404, 'Resource not found: CustomerProfile with name x');
      expect((await org.get('/leads')).body.leads).toEqual([]);
    });

    it('rejects a time zone that is not IANA', async () => {
      const res = await ctx().acme.post('/leads/create', {
        firstName: 'A',
        phone: uniquePhone(),
        timeZone: 'Mars/Olympus',
      });
      expectError(res, 400, 'timeZone is not a known IANA time zone');
    });
  });

  describe('GET /leads/{id}', () => {
    it('has every field of the contract, with null / [] / {} for unknown values, and the subscriptions map', async () => {
      const { acme } = ctx();
      const phone = uniquePhone();
      const id = await createLead(acme, { firstName: 'Ann', lastName: 'Lee', phone });
      const res = await acme.get(`/leads/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id,
        firstName: 'Ann',
        lastName: 'Lee',
        phone,
        email: null,
        customerProfile: 'default',
        additionalInfo: {},
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: expect.stringMatching(/Z$/),
        lastActivityAt: null,
        hasReplied: false,
        isHot: false,
        isQualified: false,
        isBooked: false,
        isUnsubscribed: false,
        isAiOn: true,
        isDoNotContact: false,
        tags: [],
        summary: null,
        timeZone: null,
        externalLeadId: null,
        subscriptions: { sms: 'subscribed', voice: 'subscribed', email: 'unavailable' },
        followUpConfig: null,
        followUpStep: null,
        nextFollowUpAt: null,
        followUpNote: null,
        owner: null,
      });
    });

    it('shows phone null and the phone channels unavailable for an email-only lead', async () => {
      const { acme } = ctx();
      const id = await createLead(acme, { phone: undefined, email: 'only@example.com' });
      const lead = (await acme.get(`/leads/${id}`)).body;
      expect(lead.phone).toBeNull();
      expect(lead.subscriptions).toEqual({ sms: 'unavailable', voice: 'unavailable', email: 'subscribed' });
    });

    it('404s an unknown id with the contract text', async () => {
      expectError(await ctx().acme.get(`/leads/${MISSING}`), 404, `Resource not found: Lead with id ${MISSING}`);
      expectError(await ctx().acme.get('/leads/not-a-uuid'), 404, 'Resource not found: Lead with id not-a-uuid');
    });

    it("404s another organization's lead exactly like a missing one", async () => {
      const { acme, beta } = ctx();
      const id = await createLead(acme);
      expectError(await beta.get(`/leads/${id}`), 404, `Resource not found: Lead with id ${id}`);
    });
  });

  describe('GET /leads', () => {
    it('pages 100 by default, at most 1000, and rejects 1001 and 0', async () => {
      const ts = ctx();
      const org = await freshOrg(ts);
      const created: string[] = [];
      for (let batch = 0; batch < 101; batch += 20) {
        created.push(...(await Promise.all(Array.from({ length: Math.min(20, 101 - batch) }, () => createLead(org)))));
      }
      created.sort(); // UUIDv7: id order is creation order
      const first = await org.get('/leads');
      expect(first.status).toBe(200);
      expect(first.body.leads).toHaveLength(100);
      expect(first.body.nextToken).toEqual(expect.any(String));
      const second = await org.get(`/leads?nextToken=${encodeURIComponent(first.body.nextToken!)}`);
      expect(second.body.leads.map((l: { id: string }) => l.id)).toEqual([created[100]]);
      expect(second.body.nextToken).toBeNull();
      const all = await org.get('/leads?limit=1000');
      expect(all.body.leads.map((l: { id: string }) => l.id)).toEqual(created);
      expect(all.body.nextToken).toBeNull();
      expectError(await org.get('/leads?limit=1001'), 400, 'limit must be at most 1000');
      expectError(await org.get('/leads?limit=0'), 400, 'limit must be at least 1');
      expectError(await org.get('/leads?limit=ten'), 400, 'limit must be an integer');
    });

    it('walks every lead once, oldest first, with nextToken (no gap, no duplicate)', async () => {
      const ts = ctx();
      const org = await freshOrg(ts);
      const created: string[] = [];
      for (let i = 0; i < 23; i++) created.push(await createLead(org));
      const seen: string[] = [];
      let token: string | null = null;
      let pages = 0;
      do {
        const res: { status: number; body: { leads: { id: string }[]; nextToken: string | null } } = await org.get(
          `/leads?limit=5${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`,
        );
        expect(res.status).toBe(200);
        seen.push(...res.body.leads.map((l) => l.id));
        token = res.body.nextToken;
        pages += 1;
      } while (token && pages < 20);
      expect(pages).toBe(5);
      expect(seen).toEqual(created);
    });

    it('filters by createdSince and updatedSince', async () => {
      const ts = ctx();
      const org = await freshOrg(ts);
      const a = await createLead(org);
      const b = await createLead(org);
      await sleep(5);
      const t1 = new Date().toISOString();
      await sleep(5);
      const c = await createLead(org);
      const ids = async (q: string) => ((await org.get(`/leads?${q}`)).body.leads as { id: string }[]).map((l) => l.id);
      expect(await ids(`createdSince=${t1}`)).toEqual([c]);
      await sleep(5);
      const t2 = new Date().toISOString();
      await sleep(5);
      expect((await org.patch(`/leads/${a}`, { isHot: true })).status).toBe(200);
      expect(await ids(`updatedSince=${t2}`)).toEqual([a]);
      expect(await ids(`createdSince=${encodeURIComponent('2000-01-01T00:00:00+02:00')}`)).toEqual([a, b, c]);
      expectError(
        await org.get('/leads?createdSince=yesterday'),
        400,
        'createdSince must be a date and time in ISO 8601 with its offset, like 2026-01-31T09:00:00Z',
      );
    });

    it('rejects a nextToken it did not issue', async () => {
      const { acme } = ctx();
      expectError(await acme.get('/leads?nextToken=garbage'), 400, 'nextToken is not a valid cursor');
      expectError(
        await acme.get(`/leads?nextToken=${Buffer.from('../../etc').toString('base64url')}`),
        400,
        'nextToken is not a valid cursor',
      );
    });

    it("never lists another organization's leads", async () => {
      const ts = ctx();
      const one = await freshOrg(ts);
      const two = await freshOrg(ts);
      const mine = await createLead(one);
      await createLead(two);
      const listed = (await one.get('/leads?limit=1000')).body.leads as { id: string }[];
      expect(listed.map((l) => l.id)).toEqual([mine]);
    });
  });

  describe('GET /leads/lookup', () => {
    it('answers {id} for a phone in any spelling', async () => {
      const { acme } = ctx();
      const id = await createLead(acme, { phone: '+14155550188' });
      for (const spelling of ['+14155550188', '(415) 555-0188', '415.555.0188']) {
        const res = await acme.get(`/leads/lookup?phone=${encodeURIComponent(spelling)}`);
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ id });
      }
    });

    it("404s an unknown phone and another organization's phone alike; 400 for a bad or missing one", async () => {
      const { acme, beta } = ctx();
      await createLead(acme, { phone: '+14155550189' });
      expectError(
        await beta.get('/leads/lookup?phone=%2B14155550189'),
        404,
        'Resource not found: Lead with phone +14155550189',
      );
      expectError(
        await acme.get('/leads/lookup?phone=%2B14155550190'),
        404,
        'Resource not found: Lead with phone +14155550190',
      );
      expectError(await acme.get('/leads/lookup?phone=nope'), 400, 'phone is not a valid phone number');
      expectError(await acme.get('/leads/lookup'), 400, 'phone is required');
    });
  });

  describe('PATCH /leads/{id}', () => {
    it('merges additionalInfo, deletes null keys, and emits one event with the {old,new} changes', async () => {
      const ts = ctx();
      const id = await createLead(ts.acme, { additionalInfo: { a: 1, b: 'x' }, externalLeadId: 'crm-9' });
      const res = await ts.acme.patch(`/leads/${id}`, {
        additionalInfo: { b: 'y', c: { deep: true }, a: null, never: null },
      });
      expect(res.status).toBe(200);
      expect(res.body.additionalInfo).toEqual({ b: 'y', c: { deep: true } });
      expect((await ts.acme.get(`/leads/${id}`)).body.additionalInfo).toEqual({ b: 'y', c: { deep: true } });
      const events = await outboxFor(ts, id, 'lead.additionalInfo.updated');
      expect(events).toHaveLength(1);
      expect(events[0]!.data).toEqual({
        leadId: id,
        externalLeadId: 'crm-9',
        changes: { a: { old: 1, new: null }, b: { old: 'x', new: 'y' }, c: { old: null, new: { deep: true } } },
      });
      // The same patch again changes nothing, so announces nothing.
      await ts.acme.patch(`/leads/${id}`, { additionalInfo: { b: 'y', a: null } });
      expect(await outboxFor(ts, id, 'lead.additionalInfo.updated')).toHaveLength(1);
    });

    it('loses no additionalInfo key when 20 patches of one lead race', async () => {
      const ts = ctx();
      const id = await createLead(ts.acme);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => ts.acme.patch(`/leads/${id}`, { additionalInfo: { [`k${i}`]: i } })),
      );
      expect(results.every((r) => r.status === 200)).toBe(true);
      const info = (await ts.acme.get(`/leads/${id}`)).body.additionalInfo;
      expect(info).toEqual(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i])));
      expect(await outboxFor(ts, id, 'lead.additionalInfo.updated')).toHaveLength(20);
    });

    it('changes the writable fields and answers the updated lead', async () => {
      const { acme } = ctx();
      const id = await createLead(acme);
      const res = await acme.patch(`/leads/${id}`, {
        firstName: 'Zed',
        lastName: 'Ray',
        email: 'zed@example.com',
        timeZone: 'Europe/Paris',
        summary: 'Wants a demo',
        isHot: true,
        isQualified: true,
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id,
        firstName: 'Zed',
        lastName: 'Ray',
        email: 'zed@example.com',
        timeZone: 'Europe/Paris',
        summary: 'Wants a demo',
        isHot: true,
        isQualified: true,
        subscriptions: { sms: 'subscribed', voice: 'subscribed', email: 'subscribed' },
      });
      // The reference's answer, the updated lead beside it.
      const { message, ...updated } = res.body;
      expect(message).toBe('Lead updated successfully.');
      expect((await acme.get(`/leads/${id}`)).body).toEqual(updated);
    });

    it.each([
      ['id', MISSING],
      ['createdAt', '2020-01-01T00:00:00.000Z'],
      ['updatedAt', '2020-01-01T00:00:00.000Z'],
      ['subscriptions', { sms: 'subscribed', voice: 'subscribed', email: 'subscribed' }],
      ['isUnsubscribed', false],
      ['hasReplied', true],
      ['isAiOn', false],
      ['customerProfile', 'default'],
      ['organizationId', MISSING],
    ])('rejects the read-only field %s with a 400 and changes nothing', async (field, value) => {
      const ts = ctx();
      const id = await createLead(ts.acme, { additionalInfo: { k: 1 } });
      const before = (await ts.acme.get(`/leads/${id}`)).body;
      const res = await ts.acme.patch(`/leads/${id}`, {
        firstName: 'Changed',
        additionalInfo: { k: 2 },
        [field]: value,
      });
      expectError(res, 400, `${field} is not allowed`);
      expect((await ts.acme.get(`/leads/${id}`)).body).toEqual(before);
      expect((await outboxFor(ts, id)).filter((e) => e.type !== 'lead.created')).toHaveLength(0);
    });

    it('409s a phone that another lead of the organization has, in any spelling, and changes nothing', async () => {
      const { acme } = ctx();
      await createLead(acme, { phone: '+14155550191' });
      const id = await createLead(acme);
      const before = (await acme.get(`/leads/${id}`)).body;
      expectError(
        await acme.patch(`/leads/${id}`, { phone: '(415) 555-0191', firstName: 'New' }),
        409,
        'A lead with phone +14155550191 already exists',
      );
      expect((await acme.get(`/leads/${id}`)).body).toEqual(before);
    });

    it('rejects removing both phone and email (400) and changes nothing', async () => {
      const { acme } = ctx();
      const phoneOnly = await createLead(acme);
      expectError(await acme.patch(`/leads/${phoneOnly}`, { phone: null }), 400, 'A lead needs a phone or an email');
      const both = await createLead(acme, { email: 'both@example.com' });
      expectError(
        await acme.patch(`/leads/${both}`, { phone: null, email: null }),
        400,
        'A lead needs a phone or an email',
      );
      expect((await acme.get(`/leads/${both}`)).body.email).toBe('both@example.com');
      // Removing one of the two is fine.
      const res = await acme.patch(`/leads/${both}`, { phone: null });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        phone: null,
        subscriptions: { sms: 'unavailable', voice: 'unavailable', email: 'subscribed' },
      });
    });

    it('normalises a new phone, rejects a bad one, and re-applies an earlier opt-out of that number', async () => {
      const { acme } = ctx();
      const old = uniquePhone();
      const id = await createLead(acme, { phone: old });
      await acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms'] });
      expectError(await acme.patch(`/leads/${id}`, { phone: 'twelve' }), 400, 'phone is not a valid phone number');
      const moved = await acme.patch(`/leads/${id}`, { phone: '(415) 555-0192' });
      expect(moved.body).toMatchObject({
        phone: '+14155550192',
        subscriptions: { sms: 'subscribed', voice: 'subscribed' },
      });
      const back = await acme.patch(`/leads/${id}`, { phone: old });
      expect(back.body.subscriptions).toEqual({ sms: 'unsubscribed', voice: 'subscribed', email: 'unavailable' });
    });

    it('400s an empty patch, a bad time zone, and 404s an unknown or foreign lead', async () => {
      const { acme, beta } = ctx();
      const id = await createLead(acme);
      expectError(await acme.patch(`/leads/${id}`, {}), 400, /^body must set at least one of: /);
      expectError(
        await acme.patch(`/leads/${id}`, { timeZone: 'Nowhere/Land' }),
        400,
        'timeZone is not a known IANA time zone',
      );
      expectError(
        await acme.patch(`/leads/${MISSING}`, { firstName: 'X' }),
        404,
        `Resource not found: Lead with id ${MISSING}`,
      );
      expectError(await beta.patch(`/leads/${id}`, { firstName: 'X' }), 404, `Resource not found: Lead with id ${id}`);
      expect((await acme.get(`/leads/${id}`)).body.firstName).toBe('Ann');
    });
  });

  describe('DELETE /leads/{id}', () => {
    it('erases the lead, its messages and tags', async () => {
      const ts = ctx();
      const id = await createLead(ts.acme);
      const keep = await createLead(ts.acme);
      const org = await orgId(ts, 'acme');
      const at = new Date().toISOString();
      const message = (leadId: string) => ({
        organization_id: org,
        id: randomUUID(),
        lead_id: leadId,
        channel: 'sms' as const,
        direction: 'outbound' as const,
        owner: 'user' as const,
        text: 'Hello there',
        is_ai_generated: 1 as const,
        status: 'sent',
        status_reason: null,
        scheduled_at: null,
        created_at: at,
      });
      await ts.server.store.db
        .insertInto('messages')
        .values([message(id), message(id), message(keep)])
        .execute();
      await insertTag(ts, 'acme', id, 'hot');
      const res = await ts.acme.del(`/leads/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Lead deleted successfully.' });
      expectError(await ts.acme.get(`/leads/${id}`), 404, `Resource not found: Lead with id ${id}`);
      const db = ts.server.store.db;
      expect(await db.selectFrom('messages').select('id').where('lead_id', '=', id).execute()).toEqual([]);
      expect(await db.selectFrom('lead_tags').select('id').where('lead_id', '=', id).execute()).toEqual([]);
      expect(await db.selectFrom('leads').select('id').where('id', '=', id).execute()).toEqual([]);
      expect(await db.selectFrom('messages').select('id').where('lead_id', '=', keep).execute()).toHaveLength(1);
      expectError(await ts.acme.del(`/leads/${id}`), 404, `Resource not found: Lead with id ${id}`);
    });

    it('keeps opt-outs: a re-imported phone/email is unsubscribed on exactly the channels that were opted out', async () => {
      const { acme } = ctx();
      const phone = uniquePhone();
      const id = await createLead(acme, { phone, email: 'Opted@Example.com' });
      await acme.post(`/leads/${id}/unsubscribe`, { channels: ['sms', 'email'] });
      expect((await acme.del(`/leads/${id}`)).status).toBe(200);
      const again = await createLead(acme, { phone, email: 'opted@example.com' });
      const lead = (await acme.get(`/leads/${again}`)).body;
      expect(lead.subscriptions).toEqual({ sms: 'unsubscribed', voice: 'subscribed', email: 'unsubscribed' });
      expect(lead.isUnsubscribed).toBe(false);
      // No personal data of the erased lead remains in the suppression list.
      const rows = await ctx().server.store.db.selectFrom('suppressions').selectAll().execute();
      expect(JSON.stringify(rows)).not.toContain(phone);
      expect(JSON.stringify(rows).toLowerCase()).not.toContain('opted@example.com');
    });

    it('re-imports a never-opted-out phone as subscribed', async () => {
      const { acme } = ctx();
      const phone = uniquePhone();
      const id = await createLead(acme, { phone });
      await acme.del(`/leads/${id}`);
      const again = await createLead(acme, { phone });
      expect((await acme.get(`/leads/${again}`)).body.subscriptions).toEqual({
        sms: 'subscribed',
        voice: 'subscribed',
        email: 'unavailable',
      });
    });

    it("does not erase another organization's lead", async () => {
      const { acme, beta } = ctx();
      const id = await createLead(acme);
      expectError(await beta.del(`/leads/${id}`), 404, `Resource not found: Lead with id ${id}`);
      expect((await acme.get(`/leads/${id}`)).status).toBe(200);
    });
  });

  describe('POST /leads/{id}/turnOffAi, /turnOnAi', () => {
    it('flips isAiOn and leaves the subscriptions as they were', async () => {
      const { acme } = ctx();
      const id = await createLead(acme, { email: 'ai@example.com' });
      await acme.post(`/leads/${id}/unsubscribe`, { channels: ['voice'] });
      const before = (await acme.get(`/leads/${id}`)).body.subscriptions;
      const off = await acme.post(`/leads/${id}/turnOffAi`);
      expect(off.status).toBe(200);
      expect(off.body).toEqual({ message: 'AI turned off successfully.' });
      let lead = (await acme.get(`/leads/${id}`)).body;
      expect(lead.isAiOn).toBe(false);
      expect(lead.subscriptions).toEqual(before);
      const on = await acme.post(`/leads/${id}/turnOnAi`, {});
      expect(on.body).toEqual({ message: 'AI turned on successfully.' });
      lead = (await acme.get(`/leads/${id}`)).body;
      expect(lead.isAiOn).toBe(true);
      expect(lead.subscriptions).toEqual(before);
    });

    it('404s an unknown lead', async () => {
      expectError(
        await ctx().acme.post(`/leads/${MISSING}/turnOffAi`),
        404,
        `Resource not found: Lead with id ${MISSING}`,
      );
    });
  });

  describe('POST /leads/{id}/tags/remove', () => {
    it('removes only the given tag ids of that lead', async () => {
      const ts = ctx();
      const id = await createLead(ts.acme);
      const other = await createLead(ts.acme);
      const t1 = await insertTag(ts, 'acme', id, 'hot');
      const t2 = await insertTag(ts, 'acme', id, 'vip');
      const t3 = await insertTag(ts, 'acme', id, 'demo');
      const foreign = await insertTag(ts, 'acme', other, 'hot');
      const res = await ts.acme.post(`/leads/${id}/tags/remove`, { tagIds: [t1, t3, t3, foreign, 'no-such-tag'] });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ message: 'Tags removed successfully.', removed: 2 });
      expect((await ts.acme.get(`/leads/${id}`)).body.tags).toEqual([
        { id: t2, name: 'vip', condition: 'vip condition' },
      ]);
      expect((await ts.acme.get(`/leads/${other}`)).body.tags).toEqual([
        { id: foreign, name: 'hot', condition: 'hot condition' },
      ]);
    });

    it('answers an empty tagIds as a successful no-op (docs/contract.md), 400s a missing one and 404s a foreign lead', async () => {
      const ts = ctx();
      const id = await createLead(ts.acme);
      const tag = await insertTag(ts, 'acme', id, 'hot');
      const before = (await ts.acme.get(`/leads/${id}`)).body;
      const empty = await ts.acme.post(`/leads/${id}/tags/remove`, { tagIds: [] });
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual({ message: 'Tags removed successfully.', removed: 0 });
      expect((await ts.acme.get(`/leads/${id}`)).body).toEqual(before);
      expectError(await ts.acme.post(`/leads/${id}/tags/remove`, {}), 400, 'tagIds is required');
      expectError(
        await ts.beta.post(`/leads/${id}/tags/remove`, { tagIds: [tag] }),
        404,
        `Resource not found: Lead with id ${id}`,
      );
      expect((await ts.acme.get(`/leads/${id}`)).body.tags).toHaveLength(1);
    });
  });
});
