import { expect, it } from 'vitest';
import { describeEachDialect } from '../support/harness.js';
import type { Client } from '../support/harness.js';
import { eventCount } from '../support/events.js';
import { allLeads, csvLine, importPhone, postCsv, settled } from './support.js';

/**
 * Issue 28: a file whose rows repeat leads with other values, the repeats
 * batches apart (an API import commits 500 rows at a time), ends with each
 * field's last value, and the same file imported again creates nothing,
 * updates nothing and emits nothing.
 */
const LEADS = 300;
/** Uploads and waits (a longer wait than importCsv's: 1,000 rows, read twice, on a shared machine). */
const importCsv = async (client: Client, csv: string) => {
  const res = await postCsv(client, csv);
  expect(res.status).toBe(202);
  return settled(client, res.body.id, 100_000);
};
const GAP = 700;

describeEachDialect('an import re-run of a file with repeated leads', (ctx) => {
  it('merges the repeats across batches (the last value of each field wins) and a second run is a no-op', async () => {
    const ts = ctx();
    const { acme } = ts;
    const phones = Array.from({ length: LEADS }, () => importPhone());
    const rows: string[][] = [];
    const stamp = `${ts.dialect}-${Date.now()}`;
    for (let i = 0; i < LEADS; i++)
      rows.push([`First${i}`, 'Early', phones[i]!, `rerun${i}-${stamp}@example.com`, 'Old Co', `note ${i}`, '']);
    // Filler rows push the repeats into later batches.
    const fillers = Array.from({ length: GAP - LEADS }, () => importPhone());
    for (const [i, p] of fillers.entries()) rows.push([`Fill${i}`, '', p, '', '', '', '']);
    for (let i = 0; i < LEADS; i++) {
      // The same lead by its phone with a new company and name, no notes; every third by its email alone, without a
      // phone (the row finds the lead by email); every fifth gives a new column only.
      if (i % 5 === 0) rows.push([`First${i}`, '', phones[i]!, '', '', '', `tag${i}`]);
      else if (i % 3 === 0) rows.push([`Later${i}`, 'Late', '', `rerun${i}-${stamp}@example.com`, 'New Co', '', '']);
      else rows.push([`Later${i}`, 'Late', phones[i]!, '', 'New Co', '', '']);
    }
    const csv = [
      csvLine(['First Name', 'Last Name', 'Phone', 'Email', 'Company', 'Notes', 'Tag']),
      ...rows.map((r) => csvLine(r)),
    ].join('\n');

    const first = await importCsv(acme, csv);
    expect(first).toMatchObject({ status: 'completed', created: GAP, rejected: 0 });
    const leads = new Map((await allLeads(acme)).map((l) => [l.phone, l]));
    for (const i of [0, 1, 3, 5, 9, 299]) {
      const lead = leads.get(phones[i]!)!;
      if (i % 5 === 0) {
        // Its repeat gives only a tag: the earlier row's fields stay.
        expect(lead).toMatchObject({ firstName: `First${i}`, lastName: 'Early' });
        expect(lead.additionalInfo).toEqual({ Company: 'Old Co', Notes: `note ${i}`, Tag: `tag${i}` });
      } else {
        expect(lead).toMatchObject({ firstName: `Later${i}`, lastName: 'Late' });
        expect(lead.additionalInfo).toEqual({ Company: 'New Co', Notes: `note ${i}` });
      }
    }
    const before = await eventCount(ts);
    const second = await importCsv(acme, csv);
    expect(second).toMatchObject({ status: 'completed', created: 0, updated: 0, skipped: GAP + LEADS, rejected: 0 });
    expect(await eventCount(ts)).toBe(before);
    const again = new Map((await allLeads(acme)).map((l) => [l.phone, l]));
    for (const p of phones) expect(again.get(p)).toEqual(leads.get(p));
  }, 300_000);

  it('re-imports rows whose bad field was dropped (under the default policy) with nothing updated', async () => {
    const ts = ctx();
    const { acme } = ts;
    const [p1, p2, p3] = [importPhone(), importPhone(), importPhone()];
    const stamp = `${ts.dialect}-${Date.now()}`;
    const csv = [
      csvLine(['First Name', 'Phone', 'Email', 'Time Zone', 'Company']),
      // A good phone and a bad email; a good phone and email, a bad zone; an email kept without its bad phone.
      csvLine(['Wes', p1, `zoë@@${stamp}.example.com`, '', 'Co']),
      csvLine(['Wren', p2, `wren-${stamp}@example.com`, 'Mars/Olympus_Mons', 'Co']),
      csvLine(['Ebb', 'not-a-phone', `ebb-${stamp}@example.com`, '', 'Co']),
      // A lead whose later row drops a bad email and zone: the earlier row's zone stays, the company is the later.
      csvLine(['Wade', p3, '', 'Europe/Paris', 'Old Co']),
      csvLine(['Wade', p3, 'wade@@example.com', 'Nowhere/Zone', 'New Co']),
    ].join('\n');
    const first = await importCsv(acme, csv);
    expect(first).toMatchObject({ status: 'completed', created: 4, rejected: 0, warned: 4 });
    const mine = async () =>
      (await allLeads(acme))
        .filter((l) => [p1, p2, p3].includes(l.phone!) || l.email === `ebb-${stamp}@example.com`)
        .sort((a, b) => a.firstName.localeCompare(b.firstName));
    const leads = await mine();
    expect(leads.map((l) => [l.firstName, l.phone, l.email, l.additionalInfo.Company])).toEqual([
      ['Ebb', null, `ebb-${stamp}@example.com`, 'Co'],
      ['Wade', p3, null, 'New Co'],
      ['Wes', p1, null, 'Co'],
      ['Wren', p2, `wren-${stamp}@example.com`, 'Co'],
    ]);
    expect(leads.find((l) => l.firstName === 'Wade')!.timeZone).toBe('Europe/Paris');
    const before = await eventCount(ts);
    const second = await importCsv(acme, csv);
    expect(second).toMatchObject({ status: 'completed', created: 0, updated: 0, skipped: 5, rejected: 0, warned: 4 });
    expect(await eventCount(ts)).toBe(before);
    expect(await mine()).toEqual(leads);
  });
});
