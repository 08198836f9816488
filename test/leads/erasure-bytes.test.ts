import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, uniquePhone, type TestServer } from '../support/harness.js';

/**
 * An erased lead is not readable in the SQLite files either: `strings` on the
 * database and its WAL found the phone, email and messages of a lead erased
 * through the API, in the free space of the pages (secure_delete was off) and
 * in the WAL's older page images. SQLite only: PostgreSQL's equivalent (dead
 * tuples until VACUUM, WAL segments until recycled) is the operator's, in
 * docs/operations.md.
 */
describe('erasure leaves no bytes of the lead in the SQLite files', () => {
  let ts: TestServer;
  beforeAll(async () => {
    ts = await startTestServer('sqlite');
  });
  afterAll(() => ts.close());

  const files = () => {
    const db = ts.config.databaseUrl.slice('sqlite:'.length);
    const read = (f: string) => (existsSync(f) ? readFileSync(f) : Buffer.alloc(0));
    return { db: read(db), wal: read(`${db}-wal`) };
  };
  const holding = (needles: string[]) => {
    const { db, wal } = files();
    return needles.flatMap((n) => [
      ...(db.includes(n) ? [`db holds ${n}`] : []),
      ...(wal.includes(n) ? [`wal holds ${n}`] : []),
    ]);
  };

  it('finds the phone, email and message texts in neither the database file nor its WAL after DELETE /v1/leads/{id}', async () => {
    const mark = `${Date.now().toString(36)}${process.pid.toString(36)}`;
    const phone = uniquePhone();
    const email = `bytes.person.${mark}@example.org`;
    const name = `Byteslinger${mark}`;
    const inbound = `inbound-words-${mark}-please-call-me`;
    const outbound = `outbound-words-${mark}-see-you-at-five`;
    expect((await ts.acme.patch('/settings', { contactHours: { start: '00:00', end: '00:00' } })).status).toBe(200);
    const created = await ts.acme.post('/leads/create', { firstName: name, phone, email });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect((await ts.acme.post(`/leads/${id}/sendMessage`, { message: outbound })).status).toBe(200);
    expect((await ts.acme.post('/inbound', { channel: 'sms', from: phone, text: inbound })).body.leadId).toBe(id);
    // A second version of the lead's row and many commits after it, as in real use: older page images pile up in the WAL.
    expect((await ts.acme.patch(`/leads/${id}`, { lastName: `Updated${mark}` })).status).toBe(200);
    for (let i = 0; i < 20; i++) await ts.acme.post('/leads/create', { firstName: `Filler${i}`, phone: uniquePhone() });

    const needles = [phone, email, name, inbound, outbound];
    // Not vacuous: before the erasure every one of them is on disk.
    const before = holding(needles);
    for (const n of needles)
      expect(
        before.some((h) => h.endsWith(n)),
        `${n} on disk before the erasure`,
      ).toBe(true);

    expect((await ts.acme.del(`/leads/${id}`)).status).toBe(200);

    expect(holding(needles)).toEqual([]);
    // The database still works, and keeps the opt-out state it must (nothing else).
    expect((await ts.acme.get(`/leads/${id}`)).status).toBe(404);
    expect((await ts.acme.post('/leads/create', { firstName: 'After', phone: uniquePhone() })).status).toBe(200);
  });
});
