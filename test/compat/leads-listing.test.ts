import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { insertTag } from '../../src/lead-records/leads.repository.js';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { newId } from '../../src/platform/ids.js';
import { expectError } from '../support/assert.js';
import { describeEachDialect, live, uniquePhone, type Client, type TestServer } from '../support/harness.js';

/**
 * The reference pages of docs.apten.ai this part of Parley reproduces, read
 * the way a client of the hosted service reads the answers: status, field
 * names, field types, message texts. Parley's extra fields are allowed.
 */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

async function freshOrg(ts: TestServer): Promise<{ client: Client; org: string }> {
  const name = `compat-${randomUUID().slice(0, 8)}`;
  const client = await ts.clientWithScopes([...SCOPES], name);
  const row = await ts.server.store.db
    .selectFrom('organizations')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return { client, org: row.id };
}

/** The create page's example body (phone made unique). */
const exampleLead = () => ({
  firstName: 'John',
  lastName: 'Doe',
  phone: uniquePhone(),
  customerProfile: 'default',
  timeZone: 'America/New_York',
  email: 'example@gmail.com',
  additionalInfo: { key1: 'value1', key2: 'value2' },
});

async function create(client: Client, body: Record<string, unknown> = exampleLead()): Promise<string> {
  const res = await client.post('/leads/create', body);
  expect(res.status).toBe(200);
  return res.body.id;
}

/** A lead of the list page's example, field by field: name and JSON type. */
function expectListedLead(lead: Record<string, unknown>) {
  expect(lead).toMatchObject({
    id: expect.any(String),
    firstName: expect.any(String),
    lastName: expect.any(String),
    customerProfile: expect.any(String),
    createdAt: expect.stringMatching(ISO),
    updatedAt: expect.stringMatching(ISO),
    additionalInfo: expect.any(Object),
    hasReplied: expect.any(Boolean),
    isHot: expect.any(Boolean),
    isQualified: expect.any(Boolean),
    isUnsubscribed: expect.any(Boolean),
    isAiOn: expect.any(Boolean),
    tags: expect.any(Array),
    deleted: false,
    deletedAt: null,
  });
  for (const field of ['phone', 'email', 'summary', 'externalLeadId', 'lastActivityAt']) {
    expect(lead, field).toHaveProperty(field);
    expect(lead[field] === null || typeof lead[field] === 'string', field).toBe(true);
  }
  for (const tag of lead.tags as Record<string, unknown>[])
    expect(tag).toEqual({ id: expect.any(String), name: expect.any(String), condition: expect.any(String) });
}

describeEachDialect('docs.apten.ai/api-reference/leads/list', (ctx) => {
  it('GET /leads?updatedSince= answers {leads, nextToken}: each lead with the example fields and deleted: false, deletedAt: null; nextToken null at the end', async () => {
    const ts = ctx();
    const { client, org } = await freshOrg(ts);
    const since = new Date(Date.now() - 60_000).toISOString();
    const id = await create(client, { ...exampleLead(), externalLeadId: '00Q5g00000ABCDEAA1' });
    await insertTag(ts.server.store.db, org, {
      id: newId(),
      lead_id: id,
      name: 'Tag 1',
      condition: 'Condition 1',
      created_at: new Date().toISOString(),
    });
    const res = await client.get(`/leads?updatedSince=${encodeURIComponent(since)}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['leads', 'nextToken']);
    expect(res.body.nextToken).toBeNull();
    expect(res.body.leads).toHaveLength(1);
    const lead = live(res.body.leads[0]);
    expectListedLead(lead);
    expect(lead).toMatchObject({
      id,
      firstName: 'John',
      lastName: 'Doe',
      email: 'example@gmail.com',
      customerProfile: 'default',
      additionalInfo: { key1: 'value1', key2: 'value2' },
      externalLeadId: '00Q5g00000ABCDEAA1',
      tags: [{ id: expect.any(String), name: 'Tag 1', condition: 'Condition 1' }],
    });
    expect(lead.phone).toMatch(/^\+\d+$/);
  });

  it('is a page of leads "ordered by the chosen timestamp ascending"; nextToken is an opaque string passed back for the next page', async () => {
    const ts = ctx();
    const { client } = await freshOrg(ts);
    const since = new Date(Date.now() - 60_000).toISOString();
    const made = [await create(client), await create(client), await create(client)];
    const first = await client.get(`/leads?createdSince=${encodeURIComponent(since)}&limit=2`);
    expect(first.status).toBe(200);
    expect(typeof first.body.nextToken).toBe('string');
    const second = await client.get(
      `/leads?createdSince=${encodeURIComponent(since)}&limit=2&nextToken=${encodeURIComponent(first.body.nextToken!)}`,
    );
    expect(second.body.nextToken).toBeNull();
    const all = [...first.body.leads, ...second.body.leads];
    expect(all.map((l) => l.id)).toEqual(made);
    const times = all.map((l) => live(l).createdAt);
    expect([...times].sort()).toEqual(times);
  });

  it('includes soft-deleted leads with deleted: true ("treat as removals")', async () => {
    const ts = ctx();
    const { client } = await freshOrg(ts);
    const since = new Date(Date.now() - 60_000).toISOString();
    const id = await create(client);
    expect((await client.del(`/leads/${id}`)).status).toBe(200);
    const res = await client.get(`/leads?updatedSince=${encodeURIComponent(since)}`);
    expect(res.status).toBe(200);
    expect(res.body.leads).toEqual([{ id, deleted: true, deletedAt: expect.stringMatching(ISO) }]);
  });

  it('bounds limit to 1..1000 and checks the date-times, each a 400 {message}', async () => {
    const { acme } = ctx();
    const since = '2026-01-01T00:00:00Z';
    expect((await acme.get(`/leads?updatedSince=${since}&limit=1000`)).status).toBe(200);
    for (const q of [
      `updatedSince=${since}&limit=1001`,
      `updatedSince=${since}&limit=0`,
      'updatedSince=yesterday',
      'createdSince=2026-13-01',
    ]) {
      const res = await acme.get(`/leads?${q}`);
      expect(res.status, q).toBe(400);
      expect(
        Object.keys(res.body).filter((k) => k !== 'code'),
        q,
      ).toEqual(['message']);
      expect(typeof res.body.message, q).toBe('string');
    }
  });
});

describeEachDialect('docs.apten.ai/api-reference/leads/replace-tags', (ctx) => {
  it('PUT /leads/{leadId}/tags {tagIds} answers 200 {tags: [{id, name}]}, the tags now on the lead', async () => {
    const ts = ctx();
    const { client, org } = await freshOrg(ts);
    const source = await create(client);
    const ids: string[] = [];
    for (const name of ['VIP Customer', 'Interested', 'Follow Up Required']) {
      ids.push(
        await insertTag(ts.server.store.db, org, {
          id: newId(),
          lead_id: source,
          name,
          condition: `${name}?`,
          created_at: new Date().toISOString(),
        }),
      );
    }
    const lead = await create(client);
    const res = await client.call('PUT', `/leads/${lead}/tags`, { tagIds: ids });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['tags']);
    expect(
      res.body.tags
        .map((t: { id: string; name: string }) => ({ id: t.id, name: t.name }))
        .sort((a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1)),
    ).toEqual(
      [
        { id: ids[0], name: 'VIP Customer' },
        { id: ids[1], name: 'Interested' },
        { id: ids[2], name: 'Follow Up Required' },
      ].sort((a, b) => (a.id! < b.id! ? -1 : 1)),
    );
    for (const t of res.body.tags) expect(typeof t.id === 'string' && typeof t.name === 'string').toBe(true);
    expect((await client.get(`/leads/${lead}`)).body.tags.map((t: { id: string }) => t.id).sort()).toEqual(
      [...ids].sort(),
    );
  });

  it('requires tagIds (400 {message}) and answers the contract 404 for an unknown lead', async () => {
    const { acme } = ctx();
    expectError(
      await acme.call('PUT', '/leads/room_abc/tags', { tagIds: [] }),
      404,
      'Resource not found: Lead with id room_abc',
    );
    const { client } = await freshOrg(ctx());
    const lead = await create(client);
    expectError(await client.call('PUT', `/leads/${lead}/tags`, {}), 400, 'tagIds is required');
  });
});

describeEachDialect('docs.apten.ai/api-reference/leads/create', (ctx) => {
  it('takes the example body and answers {message: "Lead created successfully.", id}', async () => {
    const { client } = await freshOrg(ctx());
    const res = await client.post('/leads/create', exampleLead());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Lead created successfully.', id: expect.any(String) });
  });

  it('accepts the documented phone spellings (+, digits, spaces, parentheses, hyphens) and a phone whose + was stripped, storing +E.164', async () => {
    const { client } = await freshOrg(ctx());
    for (const [phone, stored] of [
      ['+1 (415) 555-0142', '+14155550142'],
      ['+44 20 7946 0959', '+442079460959'],
      ['442079460960', '+442079460960'],
    ] as const) {
      const id = await create(client, { ...exampleLead(), phone });
      expect((await client.get(`/leads/${id}`)).body.phone, phone).toBe(stored);
    }
  });
});

describeEachDialect('docs.apten.ai/api-reference/leads/get-lead', (ctx) => {
  it('answers the example fields with their types: phone "in the format +15555555555", tags as {name, condition}', async () => {
    const ts = ctx();
    const { client, org } = await freshOrg(ts);
    const id = await create(client, { ...exampleLead(), phone: '15555555555' });
    await insertTag(ts.server.store.db, org, {
      id: newId(),
      lead_id: id,
      name: 'Tag 1',
      condition: 'Condition 1',
      created_at: new Date().toISOString(),
    });
    const res = await client.get(`/leads/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      firstName: 'John',
      lastName: 'Doe',
      phone: '+15555555555',
      customerProfile: 'default',
      additionalInfo: { key1: 'value1', key2: 'value2' },
      createdAt: expect.stringMatching(ISO),
      hasReplied: false,
      isHot: false,
      isQualified: false,
      isUnsubscribed: false,
      isAiOn: true,
      tags: [{ name: 'Tag 1', condition: 'Condition 1' }],
    });
    expect(res.body.summary === null || typeof res.body.summary === 'string').toBe(true);
    // Parley's additions do not change a documented field; an erased lead stays a 404 here (the list shows its removal).
    expect(res.body).not.toHaveProperty('deleted');
  });
});
