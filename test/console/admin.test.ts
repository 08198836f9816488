import { expect, it } from 'vitest';
import { clientFor, createLead, describeEachDialect, uniquePhone } from '../support/harness.js';
import { randomUUID } from 'node:crypto';
import { createUserInOrganization } from '../../src/users/users.service.js';
import { consoleClient, request, signIn, uniqueEmail } from './support.js';
import { messageOf } from '../support/assert.js';

describeEachDialect('console admin: users, API keys, read state', (ctx) => {
  it('only an admin manages users and keys; a viewer and an agent get 403 and nothing changes', async () => {
    const ts = ctx();
    for (const role of ['viewer', 'agent'] as const) {
      const c = await consoleClient(ts, role);
      const email = uniqueEmail('blocked');
      for (const [method, path, body] of [
        ['GET', '/console/api/users', undefined],
        ['POST', '/console/api/users', { email, role: 'admin' }],
        ['PATCH', `/console/api/users/${c.userId}`, { role: 'admin' }],
        ['DELETE', `/console/api/users/${c.userId}`, undefined],
        ['GET', '/console/api/keys', undefined],
        ['POST', '/console/api/keys', { name: 'x' }],
        ['DELETE', '/console/api/keys/pk_live_abcdefgh', undefined],
      ] as const) {
        const res = await c.call(method, path, body);
        expect(res.status, `${role} ${method} ${path}`).toBe(403);
        expect(messageOf(res)).toBe('Only an admin may do this.');
      }
      const users = await ts.server.store.db
        .selectFrom('users')
        .select(['email', 'role'])
        .where('id', '=', c.userId)
        .executeTakeFirstOrThrow();
      expect(users.role).toBe(role);
      expect(
        await ts.server.store.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst(),
      ).toBeUndefined();
    }
  });

  it('users created at once for a new organization (parley users create, twice) all succeed, into one organization', async () => {
    const ts = ctx();
    const name = `new-org-${randomUUID().slice(0, 8)}`;
    const created = await Promise.all(
      Array.from({ length: 5 }, () =>
        createUserInOrganization(ts.server.store.db, name, { email: uniqueEmail('first'), role: 'admin' }),
      ),
    );
    const orgs = await ts.server.store.db.selectFrom('organizations').select('id').where('name', '=', name).execute();
    expect(orgs).toHaveLength(1);
    expect(new Set(created.map((c) => c.user.organizationId))).toEqual(new Set([orgs[0]!.id]));
  });

  it('an admin creates a user (one-time password that signs in), changes the role, deletes; never themselves', async () => {
    const ts = ctx();
    const admin = await consoleClient(ts, 'admin');
    const email = uniqueEmail('New.Person').toUpperCase();
    const created = await admin.call('POST', '/console/api/users', { email, role: 'viewer' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      user: {
        id: expect.any(String),
        email: email.toLowerCase(),
        role: 'viewer',
        organizationId: expect.any(String),
        createdAt: expect.any(String),
      },
      password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
    });
    expect((await admin.call('POST', '/console/api/users', { email, role: 'agent' })).status).toBe(409);
    expect((await admin.call('POST', '/console/api/users', { email: 'not-an-email', role: 'agent' })).status).toBe(400);
    expect((await admin.call('POST', '/console/api/users', { email: uniqueEmail(), role: 'owner' })).status).toBe(400);
    const person = await signIn(ts, { email, password: created.body.password, userId: created.body.user.id });
    expect((await person.call('POST', '/v1/leads/create', { firstName: 'X', email: 'x@example.com' })).status).toBe(
      403,
    );

    const promoted = await admin.call('PATCH', `/console/api/users/${person.userId}`, { role: 'agent' });
    expect(promoted).toMatchObject({ status: 200, body: { id: person.userId, role: 'agent' } });
    // The live session takes the new role at once.
    expect((await person.call('POST', '/v1/leads/create', { firstName: 'X', email: 'x2@example.com' })).status).toBe(
      200,
    );

    const list = await admin.call('GET', '/console/api/users');
    expect(list.body.users.map((u: { email: string }) => u.email)).toEqual(
      expect.arrayContaining([admin.email, email.toLowerCase()]),
    );
    expect(JSON.stringify(list.body)).not.toMatch(/scrypt|password/);

    expect((await admin.call('PATCH', `/console/api/users/${admin.userId}`, { role: 'viewer' })).status).toBe(409);
    expect((await admin.call('DELETE', `/console/api/users/${admin.userId}`)).status).toBe(409);
    expect((await admin.call('DELETE', `/console/api/users/${person.userId}`)).status).toBe(204);
    expect((await admin.call('DELETE', `/console/api/users/${person.userId}`)).status).toBe(404);
    expect((await admin.call('PATCH', `/console/api/users/${person.userId}`, { role: 'admin' })).status).toBe(404);
  });

  it("an admin of one organization cannot see or touch another organization's users", async () => {
    const ts = ctx();
    const acmeAdmin = await consoleClient(ts, 'admin');
    const betaAdmin = await consoleClient(ts, 'admin', 'beta');
    expect(
      (await betaAdmin.call('GET', '/console/api/users')).body.users.map((u: { id: string }) => u.id),
    ).not.toContain(acmeAdmin.userId);
    expect((await betaAdmin.call('PATCH', `/console/api/users/${acmeAdmin.userId}`, { role: 'viewer' })).status).toBe(
      404,
    );
    expect((await betaAdmin.call('DELETE', `/console/api/users/${acmeAdmin.userId}`)).status).toBe(404);
    expect((await acmeAdmin.call('GET', '/console/api/session')).body.user.role).toBe('admin');
  });

  it('an admin creates an API key (shown once, works on /v1), lists it by prefix, revokes it', async () => {
    const ts = ctx();
    const admin = await consoleClient(ts, 'admin');
    const created = await admin.call('POST', '/console/api/keys', { name: 'zapier', scopes: ['leads:read'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      key: expect.stringMatching(/^pk_live_/),
      prefix: expect.any(String),
      name: 'zapier',
      scopes: ['leads:read'],
      revokedAt: null,
    });
    const key = clientFor(ts.url, created.body.key);
    expect((await key.get('/leads')).status).toBe(200);
    expect((await key.post('/leads/create', { firstName: 'K', email: 'k@example.com' })).status).toBe(403);
    const listed = await admin.call('GET', '/console/api/keys');
    expect(listed.body.keys.find((k: { prefix: string }) => k.prefix === created.body.prefix)).toMatchObject({
      name: 'zapier',
      revokedAt: null,
    });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    const defaults = await admin.call('POST', '/console/api/keys', { name: 'full' });
    expect(defaults.body.scopes).not.toContain('inbound:write');
    expect((await admin.call('POST', '/console/api/keys', { name: 'bad', scopes: ['everything'] })).status).toBe(400);

    expect((await admin.call('DELETE', `/console/api/keys/${created.body.prefix}`)).status).toBe(204);
    await new Promise((r) => setTimeout(r, ts.config.keyCacheMs + 50));
    expect((await key.get('/leads')).status).toBe(403);
    expect((await admin.call('DELETE', `/console/api/keys/${created.body.prefix}`)).status).toBe(404);
    // Another organization's admin cannot revoke acme's keys.
    const betaAdmin = await consoleClient(ts, 'admin', 'beta');
    expect((await betaAdmin.call('DELETE', `/console/api/keys/${defaults.body.prefix}`)).status).toBe(404);
  });

  it('an admin cannot mint an inbound:write key: 400 naming the scope, no key made; the command line still grants it', async () => {
    const ts = ctx();
    const admin = await consoleClient(ts, 'admin');
    const phone = uniquePhone();
    await createLead(ts.acme, { phone });
    const before = (await admin.call('GET', '/console/api/keys')).body.keys.length;
    for (const scopes of [['inbound:write'], ['leads:read', 'inbound:write']]) {
      const res = await admin.call('POST', '/console/api/keys', { name: 'speaker', scopes });
      expect(res.status, scopes.join()).toBe(400);
      expect(res.body.message).toBe(
        'The scope inbound:write is granted only from the command line (parley keys create --scopes inbound:write), not from the console',
      );
      expect(JSON.stringify(res.body)).not.toContain('pk_live_');
    }
    expect((await admin.call('GET', '/console/api/keys')).body.keys).toHaveLength(before);
    // The command line still grants it by name.
    const { issueKey } = await import('../../src/organizations/api-keys.service.js');
    const cli = clientFor(ts.url, (await issueKey(ts.server.store.db, 'acme', ['inbound:write'])).key);
    expect((await cli.post('/inbound', { channel: 'sms', from: phone, text: 'hello' })).status).toBe(200);
  });

  it('read state is per user: marking a lead read shows for that user only', async () => {
    const ts = ctx();
    const a = await consoleClient(ts, 'viewer');
    const b = await consoleClient(ts, 'viewer');
    const one = await createLead(ts.acme);
    const two = await createLead(ts.acme);
    expect((await a.call('GET', `/console/api/reads?leadIds=${one},${two}`)).body).toEqual({ reads: {} });
    expect((await a.call('PUT', `/console/api/reads/${one}`)).status).toBe(204);
    const reads = (await a.call('GET', `/console/api/reads?leadIds=${one},${two}`)).body.reads;
    expect(Object.keys(reads)).toEqual([one]);
    expect(Date.parse(reads[one]!)).toBeGreaterThan(Date.now() - 60_000);
    expect((await b.call('GET', `/console/api/reads?leadIds=${one}`)).body).toEqual({ reads: {} });
    expect((await a.call('PUT', `/console/api/reads/${one}`, undefined, { csrf: null })).status).toBe(403);
    expect(
      (await a.call('GET', `/console/api/reads?leadIds=${Array.from({ length: 501 }, (_, i) => i).join(',')}`)).status,
    ).toBe(400);
    expect((await request(ts, 'GET', '/console/api/reads')).status).toBe(401);
  });
});
