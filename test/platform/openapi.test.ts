import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { createLead, describeEachDialect, uniquePhone, type Client } from '../support/harness.js';
import { registeredRoutes, scopeTable } from '../support/routes.js';

type Operation = {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  parameters?: { in: string; name: string }[];
};
type Doc = {
  openapi: string;
  servers?: { url: string }[];
  security?: Record<string, unknown[]>[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }>;
  };
};

/** `/v1/leads/:leadId` as the document names it: `/leads/{leadId}`. */
const docPath = (url: string) => url.replace(/^\/v1/, '').replace(/:([A-Za-z]+)/g, '{$1}');

function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refsIn(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  }
  return out;
}

describeEachDialect('GET /v1/openapi.json', (ctx) => {
  let doc: Doc;
  beforeAll(async () => {
    const res = await ctx().raw('/v1/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body as Doc;
  });

  it('is served without a key, as JSON', async () => {
    const res = await ctx().raw('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    for (const ref of new Set(refsIn(doc))) {
      const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
      expect(name && doc.components.schemas[name], `unresolved $ref ${ref}`).toBeTruthy();
    }
  });

  it('declares the apiKey scheme (header x-api-key) and requires it', () => {
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(doc.security).toContainEqual({ apiKey: [] });
    expect(doc.servers).toEqual([{ url: '/v1' }]);
  });

  it('has every route of the running app, each with a 2xx answer and the error answers', () => {
    const routes = registeredRoutes(ctx()).filter((r) => r.scope !== 'public');
    expect(routes.length).toBeGreaterThanOrEqual(15);
    for (const r of routes) {
      const op = doc.paths[docPath(r.url)]?.[r.method.toLowerCase()];
      const name = `${r.method} ${r.url}`;
      expect(op, name).toBeDefined();
      const statuses = Object.keys(op!.responses ?? {});
      expect(
        statuses.some((s) => /^2\d\d$/.test(s)),
        `${name} has no 2xx`,
      ).toBe(true);
      for (const s of ['400', '403', '404', '500']) {
        expect(statuses, `${name} lacks ${s}`).toContain(s);
        expect(op!.responses![s]!.content?.['application/json']?.schema, `${name} ${s}`).toEqual({
          $ref: '#/components/schemas/Error',
        });
      }
      for (const param of r.url.match(/:([A-Za-z]+)/g) ?? []) {
        expect(
          op!.parameters?.some((p) => p.in === 'path' && p.name === param.slice(1)),
          `${name} path parameter ${param}`,
        ).toBe(true);
      }
    }
  });

  it('documents nothing that is not a route of the scope table (no stray /v1 prefix, no hidden routes)', () => {
    const table = new Set(scopeTable().map((r) => `${r.method.toLowerCase()} ${docPath(r.url)}`));
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) expect(table, `${method} ${path}`).toContain(`${method} ${path}`);
    }
    expect(Object.keys(doc.paths)).not.toContain('/openapi.json');
    expect(Object.keys(doc.paths)).not.toContain('/healthz');
  });

  it('describes errors as {message} and the lead with every field of the contract', () => {
    expect(doc.components.schemas.Error!.required).toEqual(['message']);
    const lead = doc.components.schemas.Lead!;
    for (const field of [
      'firstName',
      'lastName',
      'phone',
      'customerProfile',
      'additionalInfo',
      'createdAt',
      'hasReplied',
      'isHot',
      'isQualified',
      'isUnsubscribed',
      'isAiOn',
      'tags',
      'summary',
      'email',
    ]) {
      expect(lead.required, field).toContain(field);
    }
  });

  it('answers every lead, subscription and settings route in the documented shape, for success and errors', async () => {
    const ts = ctx();
    const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ?? formatsPlugin) as (
      a: Ajv2020,
    ) => Ajv2020;
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    ajv.addSchema({ ...doc, $id: 'openapi' });
    const pointer = (...parts: string[]) =>
      parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
    const checked = new Set<string>();

    /** Calls the API and checks the answer against the document: its status is listed, its body fits that status's schema. */
    const call = async <M extends string, P extends string>(
      client: Client,
      method: M,
      template: string,
      path: P,
      body?: unknown,
    ) => {
      const res = await client.call(method, path, body);
      const name = `${method} ${template} -> ${res.status}`;
      const documented = doc.paths[template]?.[method.toLowerCase()]?.responses?.[String(res.status)];
      expect(documented, `${name} is not documented`).toBeDefined();
      const validate = ajv.getSchema(
        `openapi#/${pointer('paths', template, method.toLowerCase(), 'responses', String(res.status), 'content', 'application/json', 'schema')}`,
      );
      expect(validate, `${name} has no schema`).toBeDefined();
      const ok = validate!(res.body);
      expect({ name, errors: ok ? null : validate!.errors, body: ok ? null : res.body }).toEqual({
        name,
        errors: null,
        body: null,
      });
      checked.add(`${method} ${template}`);
      return res;
    };

    const { acme, beta } = ts;
    const created = await call(acme, 'POST', '/leads/create', '/leads/create', {
      firstName: 'Doc',
      phone: uniquePhone(),
      email: 'doc@example.com',
      additionalInfo: { a: 1 },
    });
    const id = created.body.id;
    const L = '/leads/{leadId}';
    await call(acme, 'POST', '/leads/create', '/leads/create', { firstName: 'Doc' });
    await call(acme, 'POST', '/leads/create', '/leads/create', {
      firstName: 'Doc',
      phone: uniquePhone(),
      customerProfile: 'nope',
    });
    await call(acme, 'GET', L, `/leads/${id}`);
    await call(beta, 'GET', L, `/leads/${id}`);
    await call(acme, 'GET', '/leads', '/leads?limit=1');
    await call(acme, 'GET', '/leads', '/leads?limit=5000');
    await call(
      acme,
      'GET',
      '/leads/lookup',
      `/leads/lookup?phone=${encodeURIComponent((await acme.get(`/leads/${id}`)).body.phone!)}`,
    );
    await call(acme, 'GET', '/leads/lookup', `/leads/lookup?phone=${encodeURIComponent(uniquePhone())}`);
    await call(acme, 'PATCH', L, `/leads/${id}`, { additionalInfo: { b: 2 }, isHot: true });
    await call(acme, 'PATCH', L, `/leads/${id}`, { isAiOn: false });
    const other = await createLead(acme);
    await call(acme, 'PATCH', L, `/leads/${other}`, { phone: (await acme.get(`/leads/${id}`)).body.phone });
    await call(acme, 'POST', `${L}/unsubscribe`, `/leads/${id}/unsubscribe`, { channels: ['sms'] });
    await call(acme, 'POST', `${L}/unsubscribe`, `/leads/${id}/unsubscribe`, { channels: [] });
    await call(acme, 'POST', `${L}/resubscribe`, `/leads/${id}/resubscribe`, {});
    await ts.server.store.db
      .updateTable('leads')
      .set({ sms_status: 'unsubscribed', sms_opt_out_source: 'keyword' })
      .where('id', '=', id)
      .execute();
    await call(acme, 'POST', `${L}/resubscribe`, `/leads/${id}/resubscribe`, {});
    await call(acme, 'POST', `${L}/turnOffAi`, `/leads/${id}/turnOffAi`);
    await call(acme, 'POST', `${L}/turnOnAi`, `/leads/${id}/turnOnAi`, {});
    await call(acme, 'POST', `${L}/tags/remove`, `/leads/${id}/tags/remove`, { tagIds: [randomUUID()] });
    await call(acme, 'GET', '/settings', '/settings');
    await call(acme, 'PATCH', '/settings', '/settings', { helpText: 'Text HELP for help.' });
    await call(acme, 'DELETE', L, `/leads/${other}`);
    await call(acme, 'DELETE', L, `/leads/${other}`);
    const reader = await ts.clientWithScopes(['leads:read']);
    await call(reader, 'POST', '/leads/create', '/leads/create', { firstName: 'No' });

    expect([...checked].sort()).toEqual([
      'DELETE /leads/{leadId}',
      'GET /leads',
      'GET /leads/lookup',
      'GET /leads/{leadId}',
      'GET /settings',
      'PATCH /leads/{leadId}',
      'PATCH /settings',
      'POST /leads/create',
      'POST /leads/{leadId}/resubscribe',
      'POST /leads/{leadId}/tags/remove',
      'POST /leads/{leadId}/turnOffAi',
      'POST /leads/{leadId}/turnOnAi',
      'POST /leads/{leadId}/unsubscribe',
    ]);
  });
});
