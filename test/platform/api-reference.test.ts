import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/harness.js';
import { messageOf } from '../support/assert.js';

type Operation = { operationId?: string; description?: string; 'x-parley-origin'?: string };
type Doc = { paths: Record<string, Record<string, Operation>> };

/** Every src= and href= of a page. */
const references = (html: string) => [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/g)].map((m) => m[1]!);

describeEachDialect('the API reference served by Parley itself (GET /docs)', (ctx) => {
  let html: string;
  beforeAll(async () => {
    const res = await ctx().raw('/docs');
    expect(res.status).toBe(200);
    html = res.body as string;
  });

  it('is an HTML page, served without a key, outside /v1', async () => {
    const res = await ctx().raw('/docs');
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('<title>Parley API reference</title>');
    expect(html).toContain('swagger-ui');
  });

  it('references only its own assets (no CDN: it works offline), and each of them is served', async () => {
    const refs = references(html);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^\/docs\//);
      const asset = await ctx().raw(ref);
      expect(asset.status, ref).toBe(200);
    }
    const init = await ctx().raw('/docs/static/swagger-initializer.js');
    expect(init.status).toBe(200);
    const code = String(init.body).replace(/\/\/.*$/gm, '');
    expect(code).not.toMatch(/https?:\/\//);
    expect(code).toContain('"validatorUrl":null');
  });

  it('tells the browser to load nothing from elsewhere', async () => {
    const res = await fetch(`${ctx().url}/docs/static/swagger-initializer.js`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/https?:|validator\.swagger\.io|upgrade-insecure-requests/);
  });

  it('shows the document the server serves at /v1/openapi.json', async () => {
    const shown = await ctx().raw('/docs/json');
    const served = await ctx().raw('/v1/openapi.json');
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(served.body);
  });

  it('is the one exception: other paths outside /v1 are still 404 Not Found', async () => {
    for (const path of ['/documentation', '/openapi.json', '/doc', '/v2/leads']) {
      const res = await ctx().raw(path);
      expect(res.status, path).toBe(404);
      expect(messageOf(res), path).toBe('Not Found');
    }
  });
});

describeEachDialect('operationId and origin of every operation (GET /v1/openapi.json)', (ctx) => {
  let ops: { route: string; op: Operation }[];
  beforeAll(async () => {
    const doc = (await ctx().raw('/v1/openapi.json')).body as Doc;
    ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([m, op]) => ({ route: `${m.toUpperCase()} ${path}`, op })),
    );
  });

  it('every operation has a unique operationId', () => {
    expect(ops.length).toBeGreaterThanOrEqual(30);
    const ids = ops.map((o) => o.op.operationId);
    expect(ops.filter((o) => !/^[a-z][A-Za-z0-9]+$/.test(o.op.operationId ?? '')).map((o) => o.route)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("uses the hosted service's names for its operations (listLeads as docs.apten.ai/api-reference/leads/list publishes it)", () => {
    const id = (route: string) => ops.find((o) => o.route === route)?.op.operationId;
    expect(id('GET /leads')).toBe('listLeads');
    expect(id('POST /leads/create')).toBe('createLead');
    expect(id('GET /leads/{leadId}')).toBe('getLead');
    expect(id('POST /leads/{leadId}/sendMessage')).toBe('sendMessage');
    expect(id('POST /leads/{leadId}/switchCustomerProfile')).toBe('switchCustomerProfile');
  });

  it("says of each operation whether it is the hosted service's or Parley's own, in the extension and the description", () => {
    for (const { route, op } of ops) {
      expect(['hosted', 'parley'], route).toContain(op['x-parley-origin']);
      expect(op.description, route).toMatch(
        op['x-parley-origin'] === 'hosted' ? /Origin: the hosted service/ : /Origin: Parley/,
      );
    }
    const origin = (route: string) => ops.find((o) => o.route === route)?.op['x-parley-origin'];
    expect(origin('POST /leads/{leadId}/unsubscribe')).toBe('hosted');
    expect(origin('PATCH /settings')).toBe('parley');
    expect(origin('POST /webhooks')).toBe('parley');
  });
});
