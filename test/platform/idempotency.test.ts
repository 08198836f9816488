import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { createLead, describeEachDialect, uniquePhone, type Client, type TestServer } from '../support/harness.js';
import { outboxFor } from '../support/events.js';

const INVALID_KEY = 'Idempotency-Key must be 1 to 255 printable ASCII characters';
const KEY_REUSED = 'Idempotency-Key was already used with a different request';
const IN_PROGRESS = 'A request with this Idempotency-Key is still in progress';

const postWithKey = <P extends string>(client: Client, path: P, body: unknown, key: string) =>
  client.call('POST', path, body, { 'idempotency-key': key });

/** Every lead of the client's organization (the suite stays far below one page of 1000). */
async function allLeads(client: Client) {
  const res = await client.get('/leads?limit=1000');
  expect(res.status).toBe(200);
  expect(res.body.nextToken).toBeNull();
  return res.body.leads.flatMap((l) => (l.deleted ? [] : [l]));
}

const uniqueEmail = () => `idem-${randomUUID()}@example.com`;

async function keyRow(ts: TestServer, key: string) {
  return ts.server.store.db.selectFrom('idempotency_keys').selectAll().where('key', '=', key).execute();
}

describeEachDialect('Idempotency-Key on POST', (ctx) => {
  it('replays the first answer for the same key and body, without doing the work again', async () => {
    const { acme } = ctx();
    const key = randomUUID();
    const email = uniqueEmail();
    const first = await postWithKey(acme, '/leads/create', { firstName: 'Ann', email, lastName: 'Lee' }, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // Same body with its fields in another order is the same request.
    const raw = `{"lastName":"Lee","email":${JSON.stringify(email)},"firstName":"Ann"}`;
    const second = await acme.call('POST', '/leads/create', raw, {
      'idempotency-key': key,
      'content-type': 'application/json',
    });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    const matching = (await allLeads(acme)).filter((l) => l.email === email);
    expect(matching.map((l) => l.id)).toEqual([first.body.id]);
  });

  it('answers 422 for the same key with another body or path, and does nothing', async () => {
    const { acme } = ctx();
    const key = randomUUID();
    const first = await postWithKey(acme, '/leads/create', { firstName: 'Ann', email: uniqueEmail() }, key);
    expect(first.status).toBe(200);
    const before = (await allLeads(acme)).length;
    const otherEmail = uniqueEmail();
    const other = await postWithKey(acme, '/leads/create', { firstName: 'Ann', email: otherEmail }, key);
    expect(other.status).toBe(422);
    expect(other.body.message).toBe(KEY_REUSED);
    // Same (empty) body on another path, even another lead's: another request.
    const pathKey = randomUUID();
    expect((await postWithKey(acme, `/leads/${first.body.id}/turnOffAi`, {}, pathKey)).status).toBe(200);
    const otherLead = await createLead(acme);
    for (const path of [`/leads/${first.body.id}/turnOnAi`, `/leads/${otherLead}/turnOffAi`] as const) {
      const res = await postWithKey(acme, path, {}, pathKey);
      expect(res.status).toBe(422);
      expect(res.body.message).toBe(KEY_REUSED);
    }
    const leads = await allLeads(acme);
    expect(leads).toHaveLength(before + 1);
    expect(leads.some((l) => l.email === otherEmail)).toBe(false);
    expect((await acme.get(`/leads/${first.body.id}`)).body.isAiOn).toBe(false);
    expect((await acme.get(`/leads/${otherLead}`)).body.isAiOn).toBe(true);
  });

  it('scopes keys per organization', async () => {
    const { acme, beta } = ctx();
    const key = randomUUID();
    const body = { firstName: 'Ann', phone: uniquePhone() };
    const a = await postWithKey(acme, '/leads/create', body, key);
    expect(a.status).toBe(200);
    const b = await postWithKey(beta, '/leads/create', body, key);
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    expect(b.body.id).not.toBe(a.body.id);
    expect((await beta.get(`/leads/${b.body.id}`)).status).toBe(200);
    // Another body under the same key is beta's own business too: not a 422 because acme used the key.
    const b2 = await postWithKey(beta, '/leads/create', { firstName: 'Bob', phone: uniquePhone() }, `${key}-2`);
    const a2 = await postWithKey(acme, '/leads/create', { firstName: 'Cy', phone: uniquePhone() }, `${key}-2`);
    expect([b2.status, a2.status]).toEqual([200, 200]);
    const again = await postWithKey(acme, '/leads/create', body, key);
    expect(again.body).toEqual(a.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('replays a 4xx answer as well', async () => {
    const { acme } = ctx();
    const key = randomUUID();
    const body = { firstName: 'Ann', phone: 'not a phone' };
    const first = await postWithKey(acme, '/leads/create', body, key);
    expect(first.status).toBe(400);
    const second = await postWithKey(acme, '/leads/create', body, key);
    expect(second.status).toBe(400);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it('replays a 4xx even when the request would now succeed', async () => {
    const { acme } = ctx();
    const id = await createLead(acme);
    const key = randomUUID();
    const first = await postWithKey(acme, `/leads/${id}/unsubscribe`, { channels: ['email'] }, key);
    expect(first.status).toBe(400);
    expect(first.body.message).toBe('Lead has no email');
    expect((await acme.patch(`/leads/${id}`, { email: uniqueEmail() })).status).toBe(200);
    const retry = await postWithKey(acme, `/leads/${id}/unsubscribe`, { channels: ['email'] }, key);
    expect(retry.status).toBe(400);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect((await acme.get(`/leads/${id}`)).body.subscriptions.email).toBe('subscribed');
  });

  it('lets simultaneous requests with one key do the work once', async () => {
    const { acme } = ctx();
    for (let round = 0; round < 3; round++) {
      const key = randomUUID();
      // Email only: nothing but the key stops a second lead.
      const email = uniqueEmail();
      const results = await Promise.all(
        Array.from({ length: 8 }, () => postWithKey(acme, '/leads/create', { firstName: 'Ann', email }, key)),
      );
      const ok = results.filter((r) => r.status === 200);
      const fresh = ok.filter((r) => r.headers.get('idempotent-replayed') === null);
      expect(fresh).toHaveLength(1);
      for (const r of ok) expect(r.body).toEqual(fresh[0]!.body);
      for (const r of results.filter((r) => r.status !== 200)) {
        expect(r.status).toBe(409);
        expect(r.body.message).toBe(IN_PROGRESS);
      }
      const matching = (await allLeads(acme)).filter((l) => l.email === email);
      expect(matching.map((l) => l.id)).toEqual([fresh[0]!.body.id]);
    }
  });

  it('answers 409 while the first request runs, and takes over one abandoned for 5 minutes', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const key = randomUUID();
    expect((await postWithKey(ts.acme, `/leads/${id}/turnOffAi`, {}, key)).status).toBe(200);
    expect((await ts.acme.post(`/leads/${id}/turnOnAi`, {})).status).toBe(200);
    const db = ts.server.store.db;
    await db
      .updateTable('idempotency_keys')
      .set({ status: 'running', response_status: null, response_body: null, created_at: new Date().toISOString() })
      .where('key', '=', key)
      .execute();
    const busy = await postWithKey(ts.acme, `/leads/${id}/turnOffAi`, {}, key);
    expect(busy.status).toBe(409);
    expect(busy.body.message).toBe(IN_PROGRESS);
    expect((await ts.acme.get(`/leads/${id}`)).body.isAiOn).toBe(true);

    await db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(Date.now() - 6 * 60_000).toISOString() })
      .where('key', '=', key)
      .execute();
    const taken = await postWithKey(ts.acme, `/leads/${id}/turnOffAi`, {}, key);
    expect(taken.status).toBe(200);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    expect((await ts.acme.get(`/leads/${id}`)).body.isAiOn).toBe(false);
    const replayed = await postWithKey(ts.acme, `/leads/${id}/turnOffAi`, {}, key);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(taken.body);
  });

  it('makes a key reusable after 24 hours', async () => {
    const ts = ctx();
    const key = randomUUID();
    const first = await postWithKey(ts.acme, '/leads/create', { firstName: 'Ann', email: uniqueEmail() }, key);
    expect(first.status).toBe(200);
    const rows = await keyRow(ts, key);
    expect(rows).toHaveLength(1);
    expect(Date.parse(rows[0]!.expires_at) - Date.parse(rows[0]!.created_at)).toBe(24 * 60 * 60 * 1000);
    await ts.server.store.db
      .updateTable('idempotency_keys')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('key', '=', key)
      .execute();
    const email = uniqueEmail();
    const reused = await postWithKey(ts.acme, '/leads/create', { firstName: 'Bob', email }, key);
    expect(reused.status).toBe(200);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
    expect(reused.body.id).not.toBe(first.body.id);
    expect((await allLeads(ts.acme)).filter((l) => l.email === email).map((l) => l.id)).toEqual([reused.body.id]);
  });

  it('replays an unsubscribe without emitting its events again', async () => {
    const ts = ctx();
    const id = await createLead(ts.acme);
    const key = randomUUID();
    const first = await postWithKey(ts.acme, `/leads/${id}/unsubscribe`, {}, key);
    expect(first.status).toBe(200);
    expect(first.body.channels).toEqual(['sms', 'voice']);
    expect(await outboxFor(ts, id, 'optOut')).toHaveLength(2);
    // Resubscribed in between: a retry that ran again would unsubscribe and emit anew.
    expect((await ts.acme.post(`/leads/${id}/resubscribe`, {})).status).toBe(200);
    const retry = await postWithKey(ts.acme, `/leads/${id}/unsubscribe`, {}, key);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await outboxFor(ts, id, 'optOut')).toHaveLength(2);
    expect((await ts.acme.get(`/leads/${id}`)).body.subscriptions.sms).toBe('subscribed');
  });

  it('does not keep a 5xx: the retry does the work', async () => {
    const ts = ctx();
    const db = ts.server.store.db;
    if (ts.dialect === 'postgres') {
      await sql`create function idem_test_boom() returns trigger language plpgsql as $$
        begin if new.first_name = 'Boom' then raise exception 'boom'; end if; return new; end $$`.execute(db);
      await sql`create trigger idem_test_boom before insert on leads for each row execute function idem_test_boom()`.execute(
        db,
      );
    } else {
      await sql`create trigger idem_test_boom before insert on leads when new.first_name = 'Boom' begin select raise(abort, 'boom'); end`.execute(
        db,
      );
    }
    const key = randomUUID();
    const email = uniqueEmail();
    try {
      const failed = await postWithKey(ts.acme, '/leads/create', { firstName: 'Boom', email }, key);
      expect(failed.status).toBe(500);
      expect(await keyRow(ts, key)).toHaveLength(0);
    } finally {
      await sql`drop trigger idem_test_boom${sql.raw(ts.dialect === 'postgres' ? ' on leads' : '')}`.execute(db);
    }
    const retry = await postWithKey(ts.acme, '/leads/create', { firstName: 'Boom', email }, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect((await allLeads(ts.acme)).filter((l) => l.email === email).map((l) => l.id)).toEqual([retry.body.id]);
  });

  it('rejects a key that is empty, too long or not printable ASCII, before any work', async () => {
    const { acme } = ctx();
    const before = (await allLeads(acme)).length;
    for (const key of ['', 'k'.repeat(256), 'clé']) {
      const res = await postWithKey(acme, '/leads/create', { firstName: 'Ann', email: uniqueEmail() }, key);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(INVALID_KEY);
    }
    expect(await allLeads(acme)).toHaveLength(before);
    const longest = await postWithKey(
      acme,
      '/leads/create',
      { firstName: 'Ann', email: uniqueEmail() },
      `${randomUUID()}x${' ~'.repeat(109)}`,
    );
    expect(longest.status).toBe(200);
  });

  it('leaves requests without the header alone', async () => {
    const { acme } = ctx();
    const body = { firstName: 'Ann', email: uniqueEmail() };
    const a = await acme.post('/leads/create', body);
    const b = await acme.post('/leads/create', body);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
  });
});
