import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { insertTag } from '../../src/lead-records/leads.repository.js';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { newId } from '../../src/platform/ids.js';
import { createLead, describeEachDialect, type Client } from '../support/harness.js';

/**
 * The answers of GET /v1/leads (a lead, an erased lead, each error) and of
 * PUT /v1/leads/{leadId}/tags fit what /v1/openapi.json says of them, and the
 * document's schemas are strict enough to refuse a wrong shape.
 */
describeEachDialect('GET /v1/leads and PUT /v1/leads/{leadId}/tags against the served OpenAPI document', (ctx) => {
  it('answer in the documented shapes, for success and errors', async () => {
    const ts = ctx();
    const doc = (await ts.raw('/v1/openapi.json')).body as Record<string, unknown>;
    const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ?? formatsPlugin) as (
      a: Ajv2020,
    ) => Ajv2020;
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    ajv.addSchema({ ...doc, $id: 'openapi' });
    const schemaOf = (path: string, method: string, status: number) => {
      const pointer = ['paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema']
        .map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1')))
        .join('/');
      const validate = ajv.getSchema(`openapi#/${pointer}`);
      expect(validate, `${method} ${path} ${status} is documented`).toBeDefined();
      return validate!;
    };
    const fits = (path: string, method: string, res: { status: number; body: unknown }) => {
      const validate = schemaOf(path, method, res.status);
      const ok = validate(res.body);
      expect({ path, status: res.status, errors: ok ? null : validate.errors }).toEqual({
        path,
        status: res.status,
        errors: null,
      });
    };

    const name = `oa-${randomUUID().slice(0, 8)}`;
    const client: Client = await ts.clientWithScopes([...SCOPES], name);
    const org = (
      await ts.server.store.db
        .selectFrom('organizations')
        .select('id')
        .where('name', '=', name)
        .executeTakeFirstOrThrow()
    ).id;
    const kept = await createLead(client, { email: 'oa@example.com' });
    const tag = await insertTag(ts.server.store.db, org, {
      id: newId(),
      lead_id: kept,
      name: 'VIP',
      condition: 'spends',
      created_at: new Date().toISOString(),
    });
    const gone = await createLead(client);
    expect((await client.del(`/leads/${gone}`)).status).toBe(200);

    const feed = await client.get('/leads?updatedSince=2000-01-01T00:00:00Z&limit=1');
    fits('/leads', 'get', feed);
    const rest = await client.get(`/leads?nextToken=${encodeURIComponent(feed.body.nextToken!)}`);
    fits('/leads', 'get', rest);
    expect([...feed.body.leads, ...rest.body.leads].map((l: { deleted: boolean }) => l.deleted)).toEqual([false, true]);
    fits('/leads', 'get', await client.get('/leads'));
    fits('/leads', 'get', await client.get('/leads?updatedSince=2000-01-01T00:00:00Z&nextToken=bad'));
    fits('/leads/{leadId}/tags', 'put', await client.call('PUT', `/leads/${kept}/tags`, { tagIds: [tag] }));
    fits('/leads/{leadId}/tags', 'put', await client.call('PUT', `/leads/${kept}/tags`, { tagIds: ['nope'] }));
    fits('/leads/{leadId}/tags', 'put', await client.call('PUT', `/leads/${gone}/tags`, { tagIds: [] }));

    // Not vacuous: a lead without its fields, or an erased lead with personal data, does not fit.
    const list = schemaOf('/leads', 'get', 200);
    expect(list({ leads: [{ id: kept, deleted: false, deletedAt: null }], nextToken: null })).toBe(false);
    expect(list({ leads: [{ id: gone, deleted: true, deletedAt: 'yesterday' }], nextToken: null })).toBe(false);
    expect(
      list({
        leads: [{ id: gone, deleted: true, deletedAt: new Date().toISOString(), firstName: 'Ann' }],
        nextToken: null,
      }),
    ).toBe(false);
    expect(list({ leads: [{ id: gone, deleted: true, deletedAt: new Date().toISOString() }], nextToken: null })).toBe(
      true,
    );
    expect(schemaOf('/leads/{leadId}/tags', 'put', 200)({ tags: [{ name: 'VIP' }] })).toBe(false);
  });
});
