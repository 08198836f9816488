import { expect, it } from 'vitest';
import { describeEachDialect, type TestServer } from '../support/harness.js';
import { scanText } from '../support/scan.js';
import { csvLine, importCsv, importPhone } from './support.js';
import { until } from '../support/assert.js';

const DAY_MS = 86_400_000;
const HEADER = csvLine(['First Name', 'Last Name', 'Phone', 'Email', 'Time Zone']);

/** "(628) 200-1234": how a spreadsheet shows the lead's +16282001234. */
const national = (e164: string) => `(${e164.slice(2, 5)}) ${e164.slice(5, 8)}-${e164.slice(8)}`;

const rejectsOf = async (ts: TestServer, id: string) => {
  const res = await ts.acme.get(`/imports/${id}/rejects`);
  expect(res.status).toBe(200);
  return (res.body as string).trim().split('\r\n').slice(1);
};

/**
 * Rejected import rows quote the file's names and addresses: an erasure
 * removes those naming the lead (by phone in any form the import reads, by
 * email in any case), and all of them expire after the retention.
 */
describeEachDialect(
  'rejected import rows',
  (ctx) => {
    it('naming an erased lead are erased with it, in any spelling of its phone or email, and others stay', async () => {
      const ts = ctx();
      const mark = `${Date.now().toString(36)}${ts.dialect}`;
      const phone = importPhone();
      const email = `rejected.person.${mark}@example.org`;
      const lead = await ts.acme.post('/leads/create', { firstName: `Rejecta${mark}`, phone, email });
      expect(lead.status).toBe(200);
      const other = importPhone();
      const csv = [
        HEADER,
        // Each rejected for its time zone (or its shape), each naming the lead another way.
        csvLine([`Rejecta${mark}`, 'National', national(phone), '', 'Mars/Olympus']),
        csvLine([`Rejecta${mark}`, 'Digits', phone.slice(1), '', 'Mars/Olympus']),
        csvLine([`Rejecta${mark}`, 'Shouting', '', email.toUpperCase(), 'Mars/Olympus']),
        csvLine(['', 'NoName', phone, '', '']),
        // A shifted row: the phone sits in a column that is not the phone's, with text around it.
        csvLine([`Rejecta${mark}`, 'Shifted', '', `call ${national(phone)} after five`, '', 'extra']),
        csvLine([`Keeper${mark}`, 'Other', other, `keeper.${mark}@example.org`, 'Mars/Olympus']),
      ].join('\n');
      const done = await importCsv(ts.acme, `${csv}\n`, { invalidFields: 'reject' });
      expect(done).toMatchObject({ status: 'completed', rejected: 6 });
      expect(await rejectsOf(ts, done.id)).toHaveLength(6);

      expect((await ts.acme.del(`/leads/${lead.body.id}`)).status).toBe(200);

      const left = await rejectsOf(ts, done.id);
      expect(left).toHaveLength(1);
      expect(left[0]).toContain(`Keeper${mark}`);
      const needles = [email, national(phone), phone, phone.slice(1), `Rejecta${mark}`];
      expect(await scanText(ts.server.store.db, ts.dialect, needles)).toEqual([]);
    });

    it('expire after PARLEY_REJECTED_ROWS_RETENTION_DAYS, counted from the import, by the worker', async () => {
      const ts = ctx();
      const mark = `${Date.now().toString(36)}${ts.dialect}`;
      const file = (name: string) => `${HEADER}\n${csvLine([name, 'X', importPhone(), '', 'Mars/Olympus'])}\n`;
      // Imports made 11 and 9 days ago (the retention here is 10 days).
      ts.clock.set(new Date(Date.now() - 11 * DAY_MS));
      const old = await importCsv(ts.acme, file(`Old${mark}`), { invalidFields: 'reject' });
      ts.clock.set(new Date(Date.now() - 9 * DAY_MS));
      const recent = await importCsv(ts.acme, file(`Recent${mark}`), { invalidFields: 'reject' });
      expect(await rejectsOf(ts, old.id)).toHaveLength(1);
      expect(await rejectsOf(ts, recent.id)).toHaveLength(1);

      // Today: the worker's housekeeping runs (hourly by the clock) and removes the old import's rows.
      ts.clock.reset();
      await until(
        () => rejectsOf(ts, old.id),
        (rows) => rows.length === 0,
        10_000,
        { what: 'the expired rejected rows removed' },
      );
      // The same pass kept the recent import's; the imports themselves and their counts stay.
      expect(await rejectsOf(ts, recent.id)).toHaveLength(1);
      expect((await ts.acme.get(`/imports/${old.id}`)).body).toMatchObject({ status: 'completed', rejected: 1 });
      expect(await scanText(ts.server.store.db, ts.dialect, [`Old${mark}`])).toEqual([]);
    });
  },
  { PARLEY_REJECTED_ROWS_RETENTION_DAYS: '10', PARLEY_WORKER_POLL_MS: '20' },
);
