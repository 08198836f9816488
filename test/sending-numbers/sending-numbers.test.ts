import { expect, it } from 'vitest';
import { expectError } from '../support/assert.js';
import { describeEachDialect, type Client } from '../support/harness.js';

let counter = 0;
/** Distinct numbers per call (the 628 area code keeps them apart from the leads' 415 numbers). */
const aNumber = () => `+1628556${String(1000 + (counter++ % 9000)).padStart(4, '0')}`;

async function create(client: Client, body: Record<string, unknown>) {
  return client.post('/sendingNumbers', body);
}

describeEachDialect('/v1/sendingNumbers', (ctx) => {
  it("creates a number with its kind's default rate, normalised to E.164, and shows it in the list and by id", async () => {
    const ts = ctx();
    const national = `(628) 556-${String(2000 + counter++).slice(-4)}`;
    const res = await create(ts.acme, { number: national, kind: 'longCode' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      number: `+1628556${national.slice(-4)}`,
      kind: 'longCode',
      channel: 'sms',
      ratePerSecond: 1,
      dailyCap: null,
      assignedLeads: 0,
    });
    expect(Object.keys(res.body).sort()).toEqual([
      'assignedLeads',
      'channel',
      'createdAt',
      'dailyCap',
      'id',
      'kind',
      'number',
      'ratePerSecond',
      'unusableAt',
      'unusableCode',
      'updatedAt',
    ]);
    expect((await ts.acme.get(`/sendingNumbers/${res.body.id}`)).body).toEqual(res.body);
    expect((await ts.acme.get('/sendingNumbers')).body.sendingNumbers).toContainEqual(res.body);
  });

  it('defaults: long code 1, toll-free 3, short code 30 segments/s; an explicit rate, cap and voice channel are kept', async () => {
    const ts = ctx();
    expect((await create(ts.acme, { number: aNumber(), kind: 'tollFree' })).body.ratePerSecond).toBe(3);
    expect((await create(ts.acme, { number: aNumber(), kind: 'shortCode' })).body.ratePerSecond).toBe(30);
    const custom = await create(ts.acme, {
      number: aNumber(),
      kind: 'longCode',
      channel: 'voice',
      ratePerSecond: 0.5,
      dailyCap: 2000,
    });
    expect(custom.body).toMatchObject({ channel: 'voice', ratePerSecond: 0.5, dailyCap: 2000 });
  });

  it('PATCH changes rate and cap; a kind change moves a default rate along and keeps a chosen one', async () => {
    const ts = ctx();
    const a = (await create(ts.acme, { number: aNumber(), kind: 'longCode' })).body;
    const moved = await ts.acme.patch(`/sendingNumbers/${a.id}`, { kind: 'tollFree' });
    expect(moved.body).toMatchObject({ kind: 'tollFree', ratePerSecond: 3 });
    const b = (await create(ts.acme, { number: aNumber(), kind: 'longCode', ratePerSecond: 2 })).body;
    expect((await ts.acme.patch(`/sendingNumbers/${b.id}`, { kind: 'shortCode' })).body).toMatchObject({
      kind: 'shortCode',
      ratePerSecond: 2,
    });
    const capped = await ts.acme.patch(`/sendingNumbers/${b.id}`, { ratePerSecond: 7.5, dailyCap: 100 });
    expect(capped.body).toMatchObject({ ratePerSecond: 7.5, dailyCap: 100 });
    expect((await ts.acme.patch(`/sendingNumbers/${b.id}`, { dailyCap: null })).body.dailyCap).toBeNull();
  });

  it('DELETE removes the number; it is then a 404 and free for another organization', async () => {
    const ts = ctx();
    const number = aNumber();
    const a = (await create(ts.acme, { number, kind: 'longCode' })).body;
    expect((await ts.acme.del(`/sendingNumbers/${a.id}`)).body).toEqual({
      message: 'Sending number deleted successfully.',
    });
    expectError(await ts.acme.get(`/sendingNumbers/${a.id}`), 404, `Resource not found: SendingNumber with id ${a.id}`);
    expectError(await ts.acme.del(`/sendingNumbers/${a.id}`), 404, `Resource not found: SendingNumber with id ${a.id}`);
    expect((await create(ts.beta, { number, kind: 'longCode' })).status).toBe(201);
  });

  it("a number belongs to one organization: 409 against another pool, its own pool twice, and another organization's settings number", async () => {
    const ts = ctx();
    const number = aNumber();
    expect((await create(ts.acme, { number, kind: 'longCode' })).status).toBe(201);
    expectError(
      await create(ts.beta, { number, kind: 'tollFree' }),
      409,
      `Sending number ${number} is already used by another organization`,
    );
    expectError(
      await create(ts.acme, { number, kind: 'tollFree' }),
      409,
      `Sending number ${number} is already in this organization's pool`,
    );
    const settingsNumber = aNumber();
    expect((await ts.beta.patch('/settings', { sendingNumber: settingsNumber })).status).toBe(200);
    expectError(
      await create(ts.acme, { number: settingsNumber, kind: 'longCode' }),
      409,
      `Sending number ${settingsNumber} is already used by another organization`,
    );
    // The other way round: settings cannot take another organization's pool number.
    expectError(
      await ts.beta.patch('/settings', { sendingNumber: number }),
      409,
      `Sending number ${number} is already used by another organization`,
    );
    // An organization's own settings number may join its pool.
    expect((await create(ts.beta, { number: settingsNumber, kind: 'longCode' })).status).toBe(201);
    expect(
      (await ts.beta.get('/sendingNumbers')).body.sendingNumbers.filter((n: { number: string }) => n.number === number),
    ).toEqual([]);
  });

  it('two organizations adding one number at once: exactly one wins, the other gets 409', async () => {
    const ts = ctx();
    const number = aNumber();
    const results = await Promise.all([
      create(ts.acme, { number, kind: 'longCode' }),
      create(ts.beta, { number, kind: 'longCode' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
  });

  it("one organization's settings and another's pool claiming one number at once: exactly one wins, every time", async () => {
    const ts = ctx();
    // The two claims read different tables, so no unique index arbitrates them: only the lock on the number does.
    for (let round = 0; round < 12; round++) {
      const number = aNumber();
      const [pool, settings] = await Promise.all([
        create(ts.acme, { number, kind: 'longCode' }),
        ts.beta.patch('/settings', { sendingNumber: number }),
      ]);
      const statuses = [pool.status, settings.status];
      expect(
        statuses.filter((s) => s === 409),
        `round ${round}: pool ${pool.status}, settings ${settings.status}`,
      ).toHaveLength(1);
      expect(statuses.filter((s) => s === 200 || s === 201)).toHaveLength(1);
    }
  });

  it("organizations are isolated: another organization's number is a 404 to read, change or delete, and absent from the list", async () => {
    const ts = ctx();
    const a = (await create(ts.acme, { number: aNumber(), kind: 'longCode' })).body;
    const missing = `Resource not found: SendingNumber with id ${a.id}`;
    expectError(await ts.beta.get(`/sendingNumbers/${a.id}`), 404, missing);
    expectError(await ts.beta.patch(`/sendingNumbers/${a.id}`, { ratePerSecond: 9 }), 404, missing);
    expectError(await ts.beta.del(`/sendingNumbers/${a.id}`), 404, missing);
    expect((await ts.beta.get('/sendingNumbers')).body.sendingNumbers.map((n: { id: string }) => n.id)).not.toContain(
      a.id,
    );
    expect((await ts.acme.get(`/sendingNumbers/${a.id}`)).body.ratePerSecond).toBe(1);
  });

  it('answers clean 400s for invalid input and changes nothing', async () => {
    const ts = ctx();
    const before = (await ts.acme.get('/sendingNumbers')).body.sendingNumbers.length;
    expectError(
      await create(ts.acme, { number: 'not a phone', kind: 'longCode' }),
      400,
      'number is not a valid phone number',
    );
    expectError(
      await create(ts.acme, { number: aNumber(), kind: 'vanity' }),
      400,
      'kind must be one of: longCode, tollFree, shortCode',
    );
    expectError(await create(ts.acme, { number: aNumber() }), 400, 'kind is required');
    expectError(await create(ts.acme, { number: 5, kind: 'longCode' }), 400, 'number must be a string');
    expectError(
      await create(ts.acme, { number: aNumber(), kind: 'longCode', ratePerSecond: 0 }),
      400,
      'ratePerSecond must be at least 0.01',
    );
    expectError(
      await create(ts.acme, { number: aNumber(), kind: 'longCode', dailyCap: 0 }),
      400,
      'dailyCap must be at least 1',
    );
    expectError(
      await create(ts.acme, { number: aNumber(), kind: 'longCode', channel: 'email' }),
      400,
      'channel must be one of: sms, voice',
    );
    expectError(await create(ts.acme, { number: aNumber(), kind: 'longCode', extra: 1 }), 400, 'extra is not allowed');
    const a = (await create(ts.acme, { number: aNumber(), kind: 'longCode' })).body;
    expectError(
      await ts.acme.patch(`/sendingNumbers/${a.id}`, {}),
      400,
      'body must set at least one of: kind, ratePerSecond, dailyCap',
    );
    expectError(await ts.acme.patch(`/sendingNumbers/${a.id}`, { number: aNumber() }), 400, 'number is not allowed');
    expectError(
      await ts.acme.patch(`/sendingNumbers/${a.id}`, { ratePerSecond: 'fast' }),
      400,
      'ratePerSecond must be a number',
    );
    expect((await ts.acme.get(`/sendingNumbers/${a.id}`)).body.ratePerSecond).toBe(1);
    expect((await ts.acme.get('/sendingNumbers')).body.sendingNumbers.length).toBe(before + 1);
  });

  it('scopes: settings:read lists, only settings:write changes', async () => {
    const ts = ctx();
    const reader = await ts.clientWithScopes(['settings:read']);
    const writer = await ts.clientWithScopes(['settings:write']);
    expect((await reader.get('/sendingNumbers')).status).toBe(200);
    expectError(await reader.post('/sendingNumbers', { number: aNumber(), kind: 'longCode' }), 403, 'Forbidden');
    expect((await writer.post('/sendingNumbers', { number: aNumber(), kind: 'longCode' })).status).toBe(201);
    expectError(await writer.get('/sendingNumbers'), 403, 'Forbidden');
  });
});
