import type { TSchema } from '@sinclair/typebox';
import { afterAll, beforeAll, expect, expectTypeOf, it } from 'vitest';
import { Lead } from '../../src/leads/leads.schemas.js';
import { Message } from '../../src/messages/messages.schemas.js';
import { V1_RESPONSES, type LeadView } from '../support/api.js';
import { createLead, startTestServer, type Client, type TestServer } from '../support/harness.js';

/*
 * The test client's answers are typed from the routes' schemas (test/support/api.ts). Two halves:
 * the table matches what the app documents (checked here at run time), and a wrong field does not typecheck
 * (the `@ts-expect-error` lines below: `npm run typecheck` fails if a line they mark ever compiles).
 */

type Doc = {
  paths: Record<
    string,
    Record<string, { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> }>
  >;
  components: { schemas: Record<string, unknown> };
};

/** Every field path of a JSON schema (`leads[].tags[].name`), refs resolved, unions merged. */
function fieldPaths(schema: unknown, resolve: (ref: string) => unknown, at = '', out = new Set<string>(), depth = 0) {
  if (!schema || typeof schema !== 'object' || depth > 12) return out;
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string') return fieldPaths(resolve(s.$ref), resolve, at, out, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const branch of (s[key] as unknown[] | undefined) ?? []) fieldPaths(branch, resolve, at, out, depth + 1);
  }
  if (s.items) fieldPaths(s.items, resolve, `${at}[]`, out, depth + 1);
  for (const [name, sub] of Object.entries((s.properties as Record<string, unknown> | undefined) ?? {})) {
    out.add(`${at}.${name}`);
    fieldPaths(sub, resolve, `${at}.${name}`, out, depth + 1);
  }
  return out;
}

/** `/v1/leads/{leadId}` -> `/leads/:leadId`, the way the table (and the client) names a route. */
const tablePath = (docPath: string) => docPath.replace(/\{([A-Za-z]+)\}/g, ':$1');

let ts: TestServer;
let doc: Doc;
beforeAll(async () => {
  ts = await startTestServer('sqlite', { PARLEY_WORKER: 'false' });
  doc = (await ts.raw('/v1/openapi.json')).body as Doc;
});
afterAll(async () => {
  await ts?.close();
});

it("has every documented route's success answer, with the route's fields", () => {
  const table = V1_RESPONSES as Record<string, TSchema>;
  const fromDoc = (ref: string) => doc.components.schemas[ref.replace('#/components/schemas/', '')];
  const shared = new Map(
    [Lead, Message].map((s) => [(s as TSchema & { $id?: string }).$id ?? '', s as unknown] as const),
  );
  const fromTable = (ref: string) => shared.get(ref) ?? doc.components.schemas[ref];
  const documented: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const success = Object.entries(op.responses ?? {}).find(([status]) => /^2\d\d$/.test(status))?.[1];
      const schema = success?.content?.['application/json']?.schema ?? success?.content?.['text/csv']?.schema;
      if (!schema) continue;
      const key = `${method.toUpperCase()} ${tablePath(path)}`;
      documented.push(key);
      expect(table[key], `${key} is missing from V1_RESPONSES (test/support/api.ts)`).toBeDefined();
      expect([...fieldPaths(table[key], fromTable)].sort(), key).toEqual([...fieldPaths(schema, fromDoc)].sort());
    }
  }
  expect(documented.length).toBeGreaterThan(60);
  // And nothing in the table that the app no longer documents.
  expect(Object.keys(table).filter((k) => !documented.includes(k))).toEqual([]);
});

it('types an answer by its route: a field the schema lacks does not typecheck', async () => {
  const client: Client = ts.acme;
  const id = await createLead(client);
  const lead = await client.get(`/leads/${id}`);
  expect(lead.status).toBe(200);
  expectTypeOf(lead.body.firstName).toEqualTypeOf<string>();
  expect(lead.body.firstName).toBe('Ann');
  // @ts-expect-error the lead has no `first_name`: a renamed field fails the typecheck of the test reading it
  expect(lead.body.first_name).toBeUndefined();

  const page = await client.get(`/leads/${id}/messages?limit=5`);
  // @ts-expect-error the page of messages is `{ messages, nextToken }`, with no `items`
  expect(page.body.items).toBeUndefined();
  expect(page.body.messages).toEqual([]);

  // A static route wins over a parameter, as in the app's router.
  const lookup = await client.get(`/leads/lookup?phone=${encodeURIComponent('+14155550100')}`);
  expectTypeOf(lookup.body.id).toEqualTypeOf<string>();
  // @ts-expect-error `/leads/lookup` answers `{ id }`, not a lead
  expect(lookup.body.firstName).toBeUndefined();

  // An error's message reads without narrowing; the status says which it is.
  const missing = await client.get('/leads/00000000-0000-7000-8000-000000000000');
  expect(missing.status).toBe(404);
  expect(missing.body.message).toMatch(/not found/i);
  expectTypeOf<LeadView>().toHaveProperty('isAiOn');
});

it('answers unknown where no schema describes the answer, so a test must narrow it', async () => {
  const twiml = await ts.acme.untyped('POST', '/providers/twilio/status', {});
  expectTypeOf(twiml.body).toBeUnknown();
  const unmapped = await ts.acme.get(String('/leads'));
  expectTypeOf(unmapped.body).toBeUnknown();
  // @ts-expect-error an unknown body must be narrowed before a field is read
  expect(unmapped.body.leads).toBeDefined();
});
