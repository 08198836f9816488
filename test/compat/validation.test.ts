import { beforeAll, expect, it } from 'vitest';
import { expectError } from '../support/assert.js';
import { createLead, describeEachDialect, type ApiResponse, type Client } from '../support/harness.js';
import { sampleBody } from '../support/routes.js';

/**
 * docs/contract.md: "Validation errors are sentences a person can act on, naming
 * the field (`tagIds must be a list of tag ids`), never raw schema-validator
 * text." The first suite walks every operation of the served OpenAPI document
 * and sends it invalid input built from its own schemas; the others pin the
 * wording on the hosted service's pages.
 */

/** Phrases of ajv's own messages, and the marks of a raw regex or schema path. */
const RAW = [
  /must be equal to/,
  /must match (pattern|format)/,
  /must NOT /,
  /must have required property/,
  /must be (string|number|integer|boolean|object|array|null)\b/,
  /must be [<>]=?/,
  /\b(anyOf|oneOf|allOf)\b/,
  /must pass .* keyword/,
  /property name must be valid/,
  /must match a schema/,
  /must match exactly one schema/,
  /\^.*\$/,
  /\\[dSsw]/,
  /#\//,
  /\bschema\b/i,
];

type Schema = Record<string, any>;
type Operation = {
  parameters?: { in: string; name: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

function resolve(doc: Doc, s: Schema | undefined): Schema | undefined {
  const name = typeof s?.$ref === 'string' ? /#\/components\/schemas\/(.+)$/.exec(s.$ref)?.[1] : undefined;
  return name ? resolve(doc, doc.components.schemas[name]) : s;
}

/** Values that break one schema or another: wrong types, empty, too long, too many, out of range, NUL. */
const WRONG: unknown[] = [
  null,
  12345,
  1.5,
  -1,
  1e12,
  'zz',
  '',
  ' ',
  true,
  [],
  {},
  [12345],
  ['zz'],
  ['zz', 'zz'],
  { zz: 1 },
  'x'.repeat(20_000),
  'a\u0000b',
  Array.from({ length: 1200 }, () => 'zz'),
];
const WRONG_QUERY = ['zz', '-1', '0', '1.5', '', '99999999999', 'x'.repeat(3000), '2026-13-45'];

/** Every object path of a schema (down to three levels), with the schema there. */
function objectPaths(
  doc: Doc,
  schema: Schema | undefined,
  prefix: string[] = [],
  depth = 0,
): { path: string[]; schema: Schema }[] {
  const s = resolve(doc, schema);
  if (!s || depth > 3) return [];
  const out: { path: string[]; schema: Schema }[] = [];
  for (const branch of [s, ...(s.anyOf ?? []), ...(s.oneOf ?? [])].map((b: Schema) => resolve(doc, b))) {
    for (const [name, sub] of Object.entries<Schema>(branch?.properties ?? {})) {
      out.push({ path: [...prefix, name], schema: sub });
      out.push(...objectPaths(doc, sub, [...prefix, name], depth + 1));
    }
  }
  return out;
}

function withValueAt(base: unknown, path: string[], value: unknown): unknown {
  const root = structuredClone(base && typeof base === 'object' && !Array.isArray(base) ? base : {}) as Record<
    string,
    unknown
  >;
  let at = root;
  for (const seg of path.slice(0, -1)) {
    if (!at[seg] || typeof at[seg] !== 'object' || Array.isArray(at[seg])) at[seg] = {};
    at = at[seg] as Record<string, unknown>;
  }
  at[path[path.length - 1]!] = value;
  return root;
}

/** `/leads/{leadId}` -> `/v1/leads/:leadId`, as routes are registered. */
const registered = (path: string) => `/v1${path.replace(/\{([^}]+)\}/g, ':$1')}`;

function concrete(path: string, leadId: string): string {
  return path
    .replace('{leadId}', leadId)
    .replace('{name}', 'default')
    .replace(/\{[^}]+\}/g, '00000000-0000-7000-8000-0000000000ff');
}

describeEachDialect(
  "every operation of the served reference (docs.apten.ai pages and Parley's own): invalid input gets a sentence",
  (ctx) => {
    let doc: Doc;
    let leadId: string;
    beforeAll(async () => {
      doc = (await ctx().raw('/v1/openapi.json')).body as Doc;
      leadId = await createLead(ctx().acme);
    });

    it('no raw validator text, no 500, on any body field, body shape or query parameter of any route', async () => {
      const client = ctx().acme;
      const offences: string[] = [];
      const checked = new Map<string, number>();
      const judge = (route: string, input: string, res: ApiResponse) => {
        if (res.status >= 500) offences.push(`${route} ${input} -> ${res.status} ${JSON.stringify(res.body)}`);
        if (res.status !== 400) return;
        checked.set(route, (checked.get(route) ?? 0) + 1);
        const message = (res.body as { message?: unknown })?.message;
        if (typeof message !== 'string' || message.length < 8)
          offences.push(`${route} ${input} -> no sentence: ${JSON.stringify(res.body)}`);
        else if (RAW.some((r) => r.test(message))) offences.push(`${route} ${input} -> ${message}`);
      };
      const jsonRoutes: string[] = [];
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(methods)) {
          const route = `${method.toUpperCase()} ${path}`;
          const url = concrete(path, leadId);
          // Path parameters: a NUL, and one longer than the router takes (414 URI Too Long, also a sentence).
          for (const p of op.parameters ?? []) {
            if (p.in !== 'path') continue;
            for (const v of ['a%00b', 'x'.repeat(250)]) {
              const bad = path
                .replace(`{${p.name}}`, v)
                .replace('{leadId}', leadId)
                .replace(/\{[^}]+\}/g, 'zz');
              judge(
                route,
                `{${p.name}}=${v.slice(0, 12)}`,
                await client.call(
                  method.toUpperCase(),
                  bad,
                  method === 'get' || method === 'delete'
                    ? undefined
                    : (sampleBody(method.toUpperCase(), registered(path)) ?? {}),
                ),
              );
            }
          }
          for (const p of op.parameters ?? []) {
            if (p.in !== 'query') continue;
            for (const v of WRONG_QUERY) {
              const sep = url.includes('?') ? '&' : '?';
              judge(
                route,
                `?${p.name}=${v.slice(0, 20)}`,
                await client.call(method.toUpperCase(), `${url}${sep}${p.name}=${encodeURIComponent(v)}`),
              );
            }
          }
          const bodySchema = op.requestBody?.content?.['application/json']?.schema;
          if (!bodySchema) continue;
          jsonRoutes.push(route);
          const base = sampleBody(method.toUpperCase(), registered(path)) ?? {};
          for (const whole of [[], 'zz', 12345, null, { zzUnknownField: 1 }])
            judge(
              route,
              `body ${JSON.stringify(whole)}`,
              await client.call(method.toUpperCase(), url, JSON.stringify(whole)),
            );
          for (const { path: field } of objectPaths(doc, bodySchema)) {
            for (const v of WRONG) {
              judge(
                route,
                `${field.join('.')}=${JSON.stringify(v).slice(0, 30)}`,
                await client.call(method.toUpperCase(), url, withValueAt(base, field, v)),
              );
            }
          }
        }
      }
      expect(offences).toEqual([]);
      // Not vacuous: every route with a JSON body refused some of it with a 400, and many inputs were judged.
      expect(jsonRoutes.length).toBeGreaterThanOrEqual(15);
      expect(jsonRoutes.filter((r) => !checked.has(r))).toEqual([]);
      expect([...checked.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(300);
    }, 240_000);

    it('the walk would catch raw text: the patterns match what ajv says on its own', () => {
      for (const raw of [
        'must be equal to constant',
        'must match pattern "^([01]\\d|2[0-3]):[0-5]\\d$"',
        'must NOT have fewer than 1 items',
        'must be string',
        'must be <= 1000',
        'must match a schema in anyOf',
        'must match format "email"',
      ]) {
        expect(
          RAW.some((r) => r.test(raw)),
          raw,
        ).toBe(true);
      }
    });
  },
);

describeEachDialect(
  'docs.apten.ai/api-reference/leads/remove-tags, send-message, unsubscribe: the field and the allowed values are named',
  (ctx) => {
    let acme: Client;
    let leadId: string;
    beforeAll(async () => {
      acme = ctx().acme;
      leadId = await createLead(acme);
    });

    it.each([
      ['tags/remove', { tagIds: 'tag1' }, 'tagIds must be a list of tag ids'],
      ['tags/remove', {}, 'tagIds is required'], // an empty tagIds is a successful no-op (docs/contract.md; test/leads/tags.test.ts)
      ['tags/remove', { tagIds: [7] }, 'tagIds.0 must be a string'],
      ['sendMessage', { message: 'Hi', channel: 'fax' }, 'channel must be one of: sms, voice, call, email'],
      [
        'sendMessage',
        { message: 'Hi', scheduledTime: 'tomorrow' },
        'scheduledTime must be a date and time in ISO 8601 with its offset, like 2026-01-31T09:00:00Z',
      ],
      ['sendMessage', { message: 'Hi', sendWhenOff: 'yes' }, 'sendWhenOff must be true or false'],
      ['sendMessage', {}, 'message is required'],
    ])('POST /leads/{leadId}/%s %j -> 400 %s, nothing changed', async (op, body, message) => {
      const before = (await acme.get(`/leads/${leadId}`)).body;
      const messages = (await acme.get(`/leads/${leadId}/messages`)).body.messages.length;
      expectError(await acme.post(`/leads/${leadId}/${op}`, body), 400, message);
      expect((await acme.get(`/leads/${leadId}`)).body).toEqual(before);
      expect((await acme.get(`/leads/${leadId}/messages`)).body.messages.length).toBe(messages);
    });

    it("a bad channel on unsubscribe keeps the contract's fixed text", async () => {
      expectError(
        await acme.post(`/leads/${leadId}/unsubscribe`, { channels: ['fax'] }),
        400,
        'channels must include at least one of: sms, voice, email',
      );
    });

    it.each([
      ['/leads?limit=ten', 'limit must be an integer'],
      ['/leads?limit=0', 'limit must be at least 1'],
      ['/leads?limit=1001', 'limit must be at most 1000'],
      [
        '/leads?createdSince=yesterday',
        'createdSince must be a date and time in ISO 8601 with its offset, like 2026-01-31T09:00:00Z',
      ],
    ])('GET %s (docs.apten.ai/api-reference/leads/list) -> 400 %s', async (path, message) => {
      expectError(await acme.get(path), 400, message);
    });

    it.each([
      [{ firstName: 'A', email: 'not-an-email' }, 'email must be a valid email address, like ann@example.com'],
      [{ firstName: 'A', phone: 4155550100 }, 'phone must be a string'],
      [{ firstName: 42, phone: '+14155550100' }, 'firstName must be a string'],
      [{ firstName: '', phone: '+14155550100' }, 'firstName must not be empty'],
      ['["A"]', 'body must be a JSON object'],
    ])('POST /leads/create (docs.apten.ai/api-reference/leads/create) %j -> 400 %s', async (body, message) => {
      expectError(await acme.post('/leads/create', body), 400, message);
    });
  },
);

describeEachDialect("PATCH /v1/settings (Parley's own): contact hours and lists name the accepted form", (ctx) => {
  it.each([
    [
      { contactHours: { start: '8am', end: '21:00' } },
      'contactHours.start must be a time of day written HH:MM (24-hour), like 08:00',
    ],
    [{ contactDays: ['mon', 'funday'] }, 'contactDays.1 must be one of: sun, mon, tue, wed, thu, fri, sat'],
    [{ contactDays: ['mon', 'mon'] }, 'contactDays must not list the same value twice (items 0 and 1 are equal)'],
    [{ holidays: ['2026-1-1'] }, 'holidays.0 must be a date written YYYY-MM-DD, like 2026-12-25'],
    [{ frequencyCap: { maxAutomatedPerDay: 0 } }, 'frequencyCap.maxAutomatedPerDay must be at least 1'],
    [{ frequencyCap: 'none' }, 'frequencyCap must be an object or null'],
    [{ optOutKeywords: ['  '] }, 'optOutKeywords.0 must not be blank'],
    [{ sendingNumber: 5 }, 'sendingNumber must be a string or null'],
    [
      { externalCheck: { url: 'https://example.com/check', secret: 'x'.repeat(20), failureMode: 'maybe' } },
      'externalCheck.failureMode must be one of: closed, open',
    ],
    [{}, /^body must set at least one of: smsVoiceOptOutCoupled, timeZone, contactHours, /],
  ])('%j -> 400 %s, settings unchanged', async (body, message) => {
    const before = (await ctx().acme.get('/settings')).body;
    expectError(await ctx().acme.patch('/settings', body), 400, message);
    expect((await ctx().acme.get('/settings')).body).toEqual(before);
  });
});
