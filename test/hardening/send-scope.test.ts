import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { DEFAULT_SCOPES, routeScopes, sendingRoutes } from '../../src/platform/auth/scopes.js';
import { expectError } from '../support/assert.js';
import { describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { postCsv, settled } from '../imports/support.js';

/**
 * Making a message go out is messages:write, whatever operation causes it
 * (src/platform/auth/scopes.ts, sendingRoutes). Each operation here is tried
 * with a key holding the operation's own scope but not messages:write: the
 * request that would send is a 403 Forbidden and leaves every table as it was;
 * the same request without the send goes through; a default key still sends.
 */
interface Org {
  id: string;
  /** Default scopes: leads:write and messages:write. */
  full: Client;
  /** leads:read and leads:write, no messages:write. */
  writer: Client;
}

async function freshOrg(ts: TestServer): Promise<Org> {
  const name = `send-scope-${randomUUID().slice(0, 8)}`;
  const full = await ts.clientWithScopes([...DEFAULT_SCOPES], name);
  const writer = await ts.clientWithScopes(['leads:read', 'leads:write'], name);
  const { id } = await ts.server.store.db
    .selectFrom('organizations')
    .select('id')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  expect(
    (await full.post('/customerProfiles', { name: 'greeter', openingMessage: 'Hi {{firstName}}, this is Acme.' }))
      .status,
  ).toBe(201);
  expect((await full.post('/customerProfiles', { name: 'quiet' })).status).toBe(201);
  return { id, full, writer };
}

const TABLES = [
  'leads',
  'messages',
  'lead_openings',
  'jobs',
  'campaigns',
  'campaign_enrollments',
  'imports',
  'events',
] as const;

/** Rows of the organization in every table a send or its cause writes to. */
async function footprint(ts: TestServer, org: string): Promise<Record<(typeof TABLES)[number], number>> {
  const counts = {} as Record<(typeof TABLES)[number], number>;
  for (const table of TABLES) {
    const row = await ts.server.store.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where('organization_id', '=', org)
      .executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}

const messagesOf = async (client: Client, leadId: string) =>
  (await client.get(`/leads/${leadId}/messages`)).body.messages as { content: { text: string } }[];

async function newLead(client: Client, body: Record<string, unknown> = {}): Promise<string> {
  const res = await client.post('/leads/create', { firstName: 'Dana', phone: uniquePhone(), ...body });
  expect(res.status).toBe(200);
  return res.body.id as string;
}

const forbidden = (res: Parameters<typeof expectError>[0]) => expectError(res, 403, 'Forbidden');

describeEachDialect('an operation that makes a message go out also needs messages:write', (ctx) => {
  it('the table names routes that exist, and each has its own scope besides', () => {
    for (const route of Object.keys(sendingRoutes)) expect(routeScopes[route], route).toMatch(/:write$/);
  });

  it('create lead with a profile whose opening is on: 403 and no lead; without an opening it is created; a default key sends it', async () => {
    const ts = ctx();
    const org = await freshOrg(ts);
    const before = await footprint(ts, org.id);
    const phone = uniquePhone();
    forbidden(await org.writer.post('/leads/create', { firstName: 'Dana', phone, customerProfile: 'greeter' }));
    expect(await footprint(ts, org.id)).toEqual(before);
    expect((await org.full.get(`/leads/lookup?phone=${encodeURIComponent(phone)}`)).body.id ?? null).toBeNull();
    // No send caused: the AI off (no opening on creation), or a profile without one.
    const off = await newLead(org.writer, { phone, customerProfile: 'greeter', isAiOn: false });
    const quiet = await newLead(org.writer, { customerProfile: 'quiet' });
    for (const id of [off, quiet]) expect(await messagesOf(org.full, id)).toEqual([]);
    // The same request with messages:write records the opening: the 403 above stopped a send.
    const sent = await newLead(org.full, { customerProfile: 'greeter' });
    expect((await messagesOf(org.full, sent)).map((m) => m.content.text)).toEqual(['Hi Dana, this is Acme.']);
  });

  it('switchCustomerProfile with sendMessage: 403 and the lead stays as it was; without sendMessage it switches', async () => {
    const ts = ctx();
    const org = await freshOrg(ts);
    const id = await newLead(org.full);
    const before = await footprint(ts, org.id);
    forbidden(await org.writer.post(`/leads/${id}/switchCustomerProfile`, { profile: 'greeter', sendMessage: true }));
    expect(await footprint(ts, org.id)).toEqual(before);
    expect((await org.full.get(`/leads/${id}`)).body.customerProfile).toBe('default');
    expect(
      (await org.writer.post(`/leads/${id}/switchCustomerProfile`, { profile: 'greeter', sendMessage: false })).status,
    ).toBe(200);
    expect((await org.full.get(`/leads/${id}`)).body.customerProfile).toBe('greeter');
    expect(await messagesOf(org.full, id)).toEqual([]);
    const other = await newLead(org.full);
    const switched = await org.full.post(`/leads/${other}/switchCustomerProfile`, {
      profile: 'greeter',
      sendMessage: true,
    });
    expect(switched.body.opening).toMatchObject({ status: 'scheduled' });
  });

  it('update lead scheduling a follow-up step: 403 and no cadence; stopping follow-ups and other fields go through', async () => {
    const ts = ctx();
    const org = await freshOrg(ts);
    const id = await newLead(org.full);
    const cadence = { '1': { hours: 1, channel: 'text' } };
    const before = await footprint(ts, org.id);
    forbidden(await org.writer.patch(`/leads/${id}`, { followUpConfig: cadence, followUpStep: 1 }));
    forbidden(await org.writer.patch(`/leads/${id}`, { followUpConfig: cadence, firstName: 'Changed' }));
    expect(await footprint(ts, org.id)).toEqual(before);
    expect((await org.full.get(`/leads/${id}`)).body).toMatchObject({
      firstName: 'Dana',
      followUpConfig: null,
      nextFollowUpAt: null,
    });
    expect((await org.writer.patch(`/leads/${id}`, { firstName: 'Changed', followUpStep: -1 })).status).toBe(200);
    expect((await org.writer.patch(`/leads/${id}`, { followUpConfig: {} })).status).toBe(200);
    const jobs = async () => (await footprint(ts, org.id)).jobs;
    const jobsBefore = await jobs();
    const other = await newLead(org.full);
    expect(
      (await org.full.patch(`/leads/${other}`, { followUpConfig: cadence, followUpStep: 1 })).body.nextFollowUpAt,
    ).toEqual(expect.any(String));
    expect(await jobs()).toBe(jobsBefore + 1);
  });

  it('create and resume a campaign: 403 and nothing enrolled or resumed; pausing and cancelling need no send', async () => {
    const ts = ctx();
    const org = await freshOrg(ts);
    await newLead(org.full);
    const campaign = {
      name: 'Spring',
      customerProfile: 'greeter',
      dailyCap: 10,
      filter: {},
      startAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    };
    const before = await footprint(ts, org.id);
    forbidden(await org.writer.post('/campaigns', campaign));
    expect(await footprint(ts, org.id)).toEqual(before);
    const made = await org.full.post('/campaigns', campaign);
    expect(made.status).toBe(201);
    expect((await org.writer.post(`/campaigns/${made.body.id}/pause`)).body.status).toBe('paused');
    const paused = await footprint(ts, org.id);
    forbidden(await org.writer.post(`/campaigns/${made.body.id}/resume`));
    expect(await footprint(ts, org.id)).toEqual(paused);
    expect((await org.full.get(`/campaigns/${made.body.id}`)).body.status).toBe('paused');
    expect((await org.writer.post(`/campaigns/${made.body.id}/cancel`)).body.status).toBe('cancelled');
  });

  it('an import that starts conversations: 403 and nothing imported; a dry run or an import without openings goes through', async () => {
    const ts = ctx();
    const org = await freshOrg(ts);
    const csv = `First Name,Phone\nAda,${uniquePhone()}\nBo,${uniquePhone()}\n`;
    const before = await footprint(ts, org.id);
    forbidden(await postCsv(org.writer, csv, { profile: 'greeter', startConversations: 'true' }));
    expect(await footprint(ts, org.id)).toEqual(before);
    const dry = await postCsv(org.writer, csv, { profile: 'greeter', startConversations: 'true', dryRun: 'true' });
    expect(dry.status).toBe(202);
    expect(await settled(org.writer, dry.body.id)).toMatchObject({ status: 'completed', created: 2 });
    const plain = await postCsv(org.writer, csv, { profile: 'greeter' });
    expect(plain.status).toBe(202);
    expect(await settled(org.writer, plain.body.id)).toMatchObject({ status: 'completed', created: 2 });
    const after = await footprint(ts, org.id);
    expect({ leads: after.leads, messages: after.messages, lead_openings: after.lead_openings }).toEqual({
      leads: before.leads + 2,
      messages: before.messages,
      lead_openings: 0,
    });
    // With messages:write the same import schedules the openings.
    const started = await postCsv(org.full, `First Name,Phone\nCy,${uniquePhone()}\n`, {
      profile: 'greeter',
      startConversations: 'true',
    });
    expect(await settled(org.full, started.body.id)).toMatchObject({ status: 'completed', created: 1 });
    expect((await footprint(ts, org.id)).lead_openings).toBe(1);
  }, 120_000);
});
