import { beforeAll, expect, it } from 'vitest';
import { consoleClient, request } from '../console/support.js';
import { expectError, messageOf } from '../support/assert.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';
import { sampleBody } from '../support/routes.js';

/**
 * SECURITY.md: every body refuses a field it does not know, with a 400 naming
 * it, and changes nothing. A typo must not read as an omitted field:
 * `{"chanel":["email"]}` on unsubscribe used to answer 200 and unsubscribe
 * every channel. The walk covers every operation of the served OpenAPI
 * document, so a route added later is held to it without being listed here.
 */

type Operation = { requestBody?: { content?: Record<string, { schema?: Record<string, unknown> }> } };
type Doc = { paths: Record<string, Record<string, Operation>> };

const EXTRA = 'zzUnknownField';

/** Valid bodies the shared samples leave empty (a missing required field would be reported before the unknown one). */
const OWN_SAMPLES: Record<string, Record<string, unknown>> = {
  'POST /v1/inbound': { channel: 'sms', from: '+14155550199', text: 'Hello' },
};

/** `/leads/{leadId}` -> `/v1/leads/:leadId`, as routes are registered. */
const registered = (path: string) => `/v1${path.replace(/\{([^}]+)\}/g, ':$1')}`;

function concrete(path: string, leadId: string): string {
  return path
    .replace('{leadId}', leadId)
    .replace('{name}', 'default')
    .replace(/\{[^}]+\}/g, '00000000-0000-7000-8000-0000000000ff');
}

/** What any write reachable by these requests could change, as the API reads it. */
async function snapshot(client: Client, leadId: string): Promise<unknown[]> {
  const paths = [
    `/leads/${leadId}`,
    `/leads/${leadId}/messages`,
    `/leads/${leadId}/events`,
    `/leads/${leadId}/context`,
    '/leads?limit=1000',
    '/settings',
    '/customerProfiles',
    '/webhooks',
    '/sendingNumbers',
    '/campaigns',
    '/dnc',
  ];
  return Promise.all(
    paths.map(async (p) => {
      const res = await client.get(p);
      return [p, res.status, res.body];
    }),
  );
}

describeEachDialect('unknown body fields: every operation answers 400 naming the field, and changes nothing', (ctx) => {
  let ts: TestServer;
  let doc: Doc;
  let leadId: string;
  beforeAll(async () => {
    ts = ctx();
    doc = (await ts.raw('/v1/openapi.json')).body as Doc;
    leadId = await createLead(ts.acme, { email: 'unknown.fields@example.com' });
  });

  it('every operation with a JSON body, and every POST/PUT/PATCH without one', async () => {
    const offences: string[] = [];
    const walked: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const m = method.toUpperCase();
        if (m === 'GET' || m === 'DELETE') continue;
        const content = op.requestBody?.content;
        // Twilio's callbacks are form posts that carry many more signed fields than Parley reads.
        if (content && !content['application/json']) continue;
        // An import's body is the CSV file itself: a JSON one is a 415 (test/imports/imports.api.test.ts).
        if (m === 'POST' && path === '/imports') continue;
        // The document says so too: a client generated from it knows the body is closed.
        const schema = content?.['application/json']?.schema;
        if (schema?.properties && schema.additionalProperties !== false)
          offences.push(`${m} ${path}: the document's body schema is not closed`);
        const base = content
          ? (OWN_SAMPLES[`${m} ${registered(path)}`] ??
            ((sampleBody(m, registered(path)) ?? {}) as Record<string, unknown>))
          : {};
        const before = await snapshot(ts.acme, leadId);
        const res = await ts.acme.call(m, concrete(path, leadId), { ...base, [EXTRA]: 1 });
        walked.push(`${m} ${path}`);
        const message = (res.body as { message?: unknown })?.message;
        if (res.status !== 400 || typeof message !== 'string' || !message.includes(EXTRA)) {
          offences.push(`${m} ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
        }
        expect(await snapshot(ts.acme, leadId), `${m} ${path} changed something`).toEqual(before);
      }
    }
    expect(offences).toEqual([]);
    // Not vacuous: the document's writes were all walked, unsubscribe among them.
    expect(walked.length).toBeGreaterThanOrEqual(25);
    expect(walked).toContain('POST /leads/{leadId}/unsubscribe');
    expect(walked).toContain('POST /leads/{leadId}/turnOffAi');
  }, 120_000);

  it.each(['unsubscribe', 'resubscribe'])(
    '%s: a misspelt channels is named (with the contract text), and no channel changes',
    async (op) => {
      const id = await createLead(ts.acme, { email: `typo.${op}@example.com` });
      if (op === 'resubscribe') expect((await ts.acme.post(`/leads/${id}/unsubscribe`, {})).status).toBe(200);
      const before = (await ts.acme.get(`/leads/${id}`)).body.subscriptions;
      const res = await ts.acme.post(`/leads/${id}/${op}`, { chanel: ['email'] });
      expectError(res, 400, 'chanel is not allowed: channels must include at least one of: sms, voice, email');
      expect((await ts.acme.get(`/leads/${id}`)).body.subscriptions).toEqual(before);
    },
  );

  it('free-form maps keep taking any key: additionalInfo on create and update', async () => {
    const id = await createLead(ts.acme, { additionalInfo: { zzAnyKey: 1, nested: { whatever: true } } });
    expect((await ts.acme.patch(`/leads/${id}`, { additionalInfo: { anotherKey: 'x' } })).status).toBe(200);
    expect((await ts.acme.get(`/leads/${id}`)).body.additionalInfo).toMatchObject({ zzAnyKey: 1, anotherKey: 'x' });
  });

  it('the console API: login, users, keys, logout and read marks refuse an unknown field', async () => {
    const admin = await consoleClient(ts, 'admin');
    const login = await request(ts, 'POST', '/console/api/login', {
      email: admin.email,
      password: admin.password,
      [EXTRA]: 1,
    });
    expectError(login, 400, `${EXTRA} is not allowed`);
    expect(login.headers.get('set-cookie')).toBeNull();
    const users = (await admin.call('GET', '/console/api/users')).body;
    const keys = (await admin.call('GET', '/console/api/keys')).body;
    for (const [method, path, body] of [
      ['POST', '/console/api/users', { email: 'unknown.console@example.com', role: 'viewer', [EXTRA]: 1 }],
      ['PATCH', `/console/api/users/${admin.userId}`, { role: 'admin', [EXTRA]: 1 }],
      ['POST', '/console/api/keys', { name: 'x', [EXTRA]: 1 }],
      ['PUT', `/console/api/reads/${leadId}`, { [EXTRA]: 1 }],
      ['POST', '/console/api/logout', { [EXTRA]: 1 }],
    ] as const) {
      const res = await admin.call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(messageOf(res), `${method} ${path}`).toContain(EXTRA);
    }
    expect((await admin.call('GET', '/console/api/users')).body).toEqual(users);
    expect((await admin.call('GET', '/console/api/keys')).body).toEqual(keys);
    // Still signed in: the refused logout did not end the session.
    expect((await admin.call('GET', '/console/api/session')).status).toBe(200);
  });
});
