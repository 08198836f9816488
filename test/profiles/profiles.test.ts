import { expect, it } from 'vitest';
import { createLead, describeEachDialect, type ApiResponse } from '../support/harness.js';

const notFound = (name: string) => `Resource not found: CustomerProfile with name ${name}`;

/** The body a truly missing name gets, with `name` in it: a foreign profile must be indistinguishable. */
function asMissing(missing: ApiResponse, missingName: string, name: string) {
  return JSON.parse(JSON.stringify(missing.body).replaceAll(missingName, name));
}

describeEachDialect('customer profiles CRUD', (ctx) => {
  it('gives every new organization a `default` profile with the full view shape', async () => {
    const org = await ctx().clientWithScopes(['profiles:read'], 'fresh-profiles-org');
    const list = await org.get('/customerProfiles');
    expect(list.status).toBe(200);
    expect(list.body.profiles.map((p: { name: string }) => p.name)).toEqual(['default']);
    const one = await org.get('/customerProfiles/default');
    expect(one.status).toBe(200);
    expect(one.body).toEqual(list.body.profiles[0]);
    expect(Object.keys(one.body).sort()).toEqual([
      'createdAt',
      'description',
      'id',
      'instructions',
      'name',
      'notifications',
      'openingMessage',
      'openingVariants',
      'questions',
      'updatedAt',
    ]);
    expect(one.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Array.isArray(one.body.questions)).toBe(true);
  });

  it('creates a profile with 201 and returns it; absent texts are null, questions []', async () => {
    const { acme } = ctx();
    const res = await acme.post('/customerProfiles', { name: 'Spring Promo' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Spring Promo',
      description: null,
      instructions: null,
      openingMessage: null,
      questions: [],
    });
    expect(res.body.createdAt).toBe(res.body.updatedAt);
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    const got = await acme.get(`/customerProfiles/${encodeURIComponent('Spring Promo')}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('stores every field and lists profiles by name', async () => {
    const { acme } = ctx();
    const body = {
      name: 'b-full_1',
      description: 'd',
      instructions: 'be kind',
      openingMessage: 'Hi {{firstName}}',
      questions: ['Budget?', 'When?'],
    };
    const res = await acme.post('/customerProfiles', body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject(body);
    await acme.post('/customerProfiles', { name: 'a-first' });
    const names = (await acme.get('/customerProfiles')).body.profiles.map((p: { name: string }) => p.name);
    expect(names).toContain('b-full_1');
    expect(names).toEqual([...names].sort());
    expect((await acme.get('/customerProfiles/b-full_1')).body).toEqual(res.body);
  });

  it('answers 409 with a clear message for a duplicate name, including `default`', async () => {
    const { acme } = ctx();
    expect((await acme.post('/customerProfiles', { name: 'dup' })).status).toBe(201);
    for (const name of ['dup', 'default']) {
      const res = await acme.post('/customerProfiles', { name, description: 'other' });
      expect(res.status).toBe(409);
      expect(res.body.message).toBe(`A customer profile named ${name} already exists`);
    }
    expect((await acme.get('/customerProfiles/dup')).body.description).toBeNull();
  });

  it('lets two organizations use the same name', async () => {
    const { acme, beta } = ctx();
    expect((await acme.post('/customerProfiles', { name: 'shared-name' })).status).toBe(201);
    expect((await beta.post('/customerProfiles', { name: 'shared-name' })).status).toBe(201);
  });

  it('accepts a 100-character name', async () => {
    const res = await ctx().acme.post('/customerProfiles', { name: 'n'.repeat(100) });
    expect(res.status).toBe(201);
  });

  it.each([
    ['missing', {}, /^name is required$/],
    ['empty', { name: '' }, /^name /],
    ['101 characters', { name: 'n'.repeat(101) }, /^name /],
    ['a slash', { name: 'a/b' }, /^name /],
    ['a dot', { name: 'a.b' }, /^name /],
    ['a leading space', { name: ' lead' }, /^name /],
    ['not a string', { name: 7 }, /^name /],
    ['an unknown field', { name: 'ok-name', color: 'red' }, /^color is not allowed$/],
    ['non-string questions', { name: 'ok-name', questions: [1] }, /^questions/],
  ])('rejects a body with %s with a 400 naming the field', async (_what, body, message) => {
    const { acme } = ctx();
    const res = await acme.post('/customerProfiles', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    expect((await acme.get('/customerProfiles/ok-name')).status).toBe(404);
  });

  it('404s an unknown name with the contract text', async () => {
    const { acme } = ctx();
    for (const [method, body] of [['GET'], ['PATCH', { description: 'x' }], ['DELETE']] as const) {
      const res = await acme.call(method, '/customerProfiles/no-such-profile', body);
      expect(res.status).toBe(404);
      expect(res.body.message).toBe(notFound('no-such-profile'));
    }
  });

  it('PATCH changes only the fields sent, null clears a text, and updatedAt moves', async () => {
    const { acme } = ctx();
    const created = (
      await acme.post('/customerProfiles', { name: 'patch-me', description: 'old', instructions: 'keep' })
    ).body;
    await new Promise((r) => setTimeout(r, 5));
    const res = await acme.patch('/customerProfiles/patch-me', { description: null, questions: ['Q1'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.id,
      name: 'patch-me',
      description: null,
      instructions: 'keep',
      questions: ['Q1'],
      createdAt: created.createdAt,
    });
    expect(res.body.updatedAt > created.updatedAt).toBe(true);
    expect((await acme.get('/customerProfiles/patch-me')).body).toEqual(res.body);
  });

  it('PATCH refuses the name (immutable), unknown fields and an empty body', async () => {
    const { acme } = ctx();
    await acme.post('/customerProfiles', { name: 'fixed-name' });
    const rename = await acme.patch('/customerProfiles/fixed-name', { name: 'other-name', description: 'x' });
    expect(rename.status).toBe(400);
    expect(rename.body.message).toBe('name is not allowed');
    const unknown = await acme.patch('/customerProfiles/fixed-name', { id: 'x' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('id is not allowed');
    expect((await acme.patch('/customerProfiles/fixed-name', {})).status).toBe(400);
    expect((await acme.get('/customerProfiles/fixed-name')).body.description).toBeNull();
    expect((await acme.get('/customerProfiles/other-name')).status).toBe(404);
  });

  it('DELETE removes an unused profile', async () => {
    const { acme } = ctx();
    await acme.post('/customerProfiles', { name: 'short-lived' });
    const res = await acme.del('/customerProfiles/short-lived');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Customer profile deleted successfully.' });
    expect((await acme.get('/customerProfiles/short-lived')).status).toBe(404);
    // The name is free again.
    expect((await acme.post('/customerProfiles', { name: 'short-lived' })).status).toBe(201);
  });

  it('DELETE refuses `default` with 409', async () => {
    const { acme } = ctx();
    const res = await acme.del('/customerProfiles/default');
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('The default customer profile cannot be deleted');
    expect((await acme.get('/customerProfiles/default')).status).toBe(200);
  });

  it('DELETE refuses a profile that leads still use, and allows it once they moved', async () => {
    const { acme } = ctx();
    await acme.post('/customerProfiles', { name: 'in-use' });
    const lead = await createLead(acme, { customerProfile: 'in-use' });
    const res = await acme.del('/customerProfiles/in-use');
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(
      'Customer profile in-use is used by 1 lead(s); switch them to another profile before deleting it',
    );
    expect((await acme.get('/customerProfiles/in-use')).status).toBe(200);
    expect((await acme.post(`/leads/${lead}/switchCustomerProfile`, { profile: 'default' })).status).toBe(200);
    expect((await acme.del('/customerProfiles/in-use')).status).toBe(200);
  });

  it("gives another organization's profile the same 404 as a missing one, on every route", async () => {
    const { acme, beta } = ctx();
    await acme.post('/customerProfiles', { name: 'acme-secret', description: 'acme' });
    const missing = await beta.get('/customerProfiles/never-made');
    expect(missing.status).toBe(404);
    const expected = asMissing(missing, 'never-made', 'acme-secret');
    expect(expected.message).toBe(notFound('acme-secret'));
    for (const [method, body] of [['GET'], ['PATCH', { description: 'beta' }], ['DELETE']] as const) {
      const res = await beta.call(method, '/customerProfiles/acme-secret', body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(expected);
    }
    const names = (await beta.get('/customerProfiles')).body.profiles.map((p: { name: string }) => p.name);
    expect(names).not.toContain('acme-secret');
    expect((await acme.get('/customerProfiles/acme-secret')).body.description).toBe('acme');
  });

  it('answers 403 Forbidden to a profiles:read key on every write route, and serves its reads', async () => {
    const { acme } = ctx();
    await acme.post('/customerProfiles', { name: 'guarded' });
    const reader = await ctx().clientWithScopes(['profiles:read']);
    for (const [method, path, body] of [
      ['POST', '/customerProfiles', { name: 'by-reader' }],
      ['PATCH', '/customerProfiles/guarded', { description: 'by reader' }],
      ['DELETE', '/customerProfiles/guarded', undefined],
    ] as const) {
      const res = await reader.call(method, path, body);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('Forbidden');
    }
    expect((await reader.get('/customerProfiles/guarded')).body.description).toBeNull();
    expect((await reader.get('/customerProfiles/by-reader')).status).toBe(404);
    expect((await reader.get('/customerProfiles')).status).toBe(200);
    // And a key without profiles:read cannot read them.
    const leadsOnly = await ctx().clientWithScopes(['leads:read']);
    expect((await leadsOnly.get('/customerProfiles')).status).toBe(403);
  });
});
