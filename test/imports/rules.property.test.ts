import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldOf, MappingError, parseMap, planColumns } from '../../src/imports/columns.js';
import { csvRecords, detectDelimiter } from '../../src/imports/csv-source.js';
import { resolveBatch, type Entry } from '../../src/imports/resolve.js';
import { readRow, type ImportedLead } from '../../src/imports/rows.js';
import { mergeInfo } from '../../src/lead-records/additional-info.js';
import type { LeadRow } from '../../src/lead-records/leads.repository.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);

describe('header mapping', () => {
  const spellings: [string, string][] = [
    ['First Name', 'firstName'],
    ['first_name', 'firstName'],
    ['FIRSTNAME', 'firstName'],
    ['Last Name', 'lastName'],
    ['surname', 'lastName'],
    ['Mobile', 'phone'],
    ['Phone Number', 'phone'],
    ['Cell', 'phone'],
    ['Mobile Phone', 'phone'],
    ['E-mail', 'email'],
    ['Email Address', 'email'],
    ['Time Zone', 'timeZone'],
    ['tz', 'timeZone'],
    ['External ID', 'externalLeadId'],
    ['external_lead_id', 'externalLeadId'],
    ['externalLeadId', 'externalLeadId'],
  ];
  it.each(spellings)('%s -> %s', (header, field) => expect(fieldOf(header)).toBe(field));

  it('any case and any spaces, _, - or . between the letters of a known spelling name the same field', () => {
    const sep = fc.constantFrom('', ' ', '_', '-', '.', '  ');
    fc.assert(
      fc.property(
        fc.constantFrom(...spellings),
        fc.array(sep, { minLength: 40, maxLength: 40 }),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        ([header, field], seps, upper) => {
          const letters = header.replace(/[\s_\-.]/g, '').split('');
          const varied = letters
            .map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase()) + (i < letters.length - 1 ? seps[i] : ''))
            .join('');
          expect(fieldOf(` ${varied} `)).toBe(field);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a bare id is not an external id; unknown columns go to additionalInfo under their header', () => {
    const plan = planColumns(['id', 'First Name', 'Company Name', ''], new Map());
    expect(plan.targets).toEqual([{ info: 'id' }, { field: 'firstName' }, { info: 'Company Name' }, { ignore: true }]);
  });

  it('--map overrides spellings and is checked', () => {
    const plan = planColumns(['Mobile', 'Work Phone', 'Ref'], parseMap('Mobile=-,Work Phone=phone,Ref=info:crm'));
    expect(plan.targets).toEqual([{ ignore: true }, { field: 'phone' }, { info: 'crm' }]);
    expect(() => parseMap('Mobile')).toThrow(MappingError);
    expect(() => parseMap('Mobile=telephone')).toThrow(/"telephone" is not a lead field/);
    expect(() => planColumns(['Phone', 'Mobile'], new Map())).toThrow(/both fill phone/);
  });
});

describe('separators and CSV forms', () => {
  it.each([
    ['a,b;c', ','],
    ['a;b;c', ';'],
    ['a\tb\tc;d', '\t'],
    ['"x;y";a,b,c', ','],
    ['one', ','],
    ['a;b\nc,d,e,f', ';'],
  ])('%j -> %j', (head, sep) => expect(detectDelimiter(head)).toBe(sep));

  it('reads a BOM, CRLF, quoted separators and newlines, and skips blank and padding lines, however the bytes are chunked', async () => {
    const text = '\uFEFFa;b\r\n"x;1";"line\r\ntwo"\r\n;\r\n\r\n3;"q""uote"\r\n';
    const bytes = Buffer.from(text);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: bytes.length }), async (size) => {
        async function* chunks() {
          for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
        }
        const out = [];
        for await (const r of csvRecords(chunks())) out.push(r.values);
        expect(out).toEqual([
          ['a', 'b'],
          ['x;1', 'line\r\ntwo'],
          ['3', 'q"uote'],
        ]);
      }),
      { numRuns: 50 },
    );
  });
});

describe('row checks', () => {
  const plan = planColumns(['First Name', 'Phone', 'Email', 'Time Zone', 'Note'], new Map());
  const cell = fc.oneof(
    fc.constant(''),
    fc.constantFrom(
      '+14155550123',
      '4155550124',
      '12',
      'abc',
      'a@b.co',
      'A@Example.COM',
      'not@',
      'America/Chicago',
      'Mars/Base',
      'Ann',
    ),
    fc.string({ maxLength: 12 }),
  );
  it('never throws; an accepted row has a first name and a normalised phone or a lower-case email; a refused one says why', () => {
    fc.assert(
      fc.property(fc.array(cell, { minLength: 0, maxLength: 7 }), (record) => {
        const out = readRow(plan, record, 'US');
        if (out.ok) {
          expect(out.lead.firstName.trim()).not.toBe('');
          expect(out.lead.phone !== null || out.lead.email !== null).toBe(true);
          if (out.lead.phone !== null) expect(out.lead.phone).toMatch(/^\+\d{6,15}$/);
          if (out.lead.email !== null) expect(out.lead.email).toBe(out.lead.email.toLowerCase());
        } else {
          expect(out.reason).toMatch(/^[a-zA-Z(]|^the row/);
          const [first, phone, email] = [record[0]?.trim(), record[1]?.trim(), record[2]?.trim()];
          if (
            first &&
            (phone || email) &&
            record.length <= 5 &&
            !(record[3] ?? '').trim() &&
            phone === '+14155550123' &&
            !email
          )
            throw new Error(`refused a good row: ${out.reason}`);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('dedupe is stable under re-runs and cut-offs', () => {
  const lead = fc
    .record({
      firstName: fc.constantFrom('A', 'B', 'C'),
      phone: fc.option(fc.constantFrom('+14155550001', '+14155550002', '+14155550003'), { nil: null }),
      email: fc.option(fc.constantFrom('a@x.co', 'b@x.co'), { nil: null }),
      externalLeadId: fc.option(fc.constantFrom('e1', 'e2'), { nil: undefined }),
      info: fc.dictionary(fc.constantFrom('k1', 'k2'), fc.constantFrom('1', '2')),
    })
    .filter((r) => r.phone !== null || r.email !== null)
    .map((r): ImportedLead => ({ ...r, lastName: undefined, timeZone: undefined }));

  /** A tiny store: what findLeadsByKeys reads, and what a batch writes. */
  function runBatches(db: Map<string, LeadRow>, rows: ImportedLead[], size: number, onDuplicate: 'skip' | 'update') {
    for (let i = 0; i < rows.length; i += size) {
      const batch = rows.slice(i, i + size);
      const hits = [...db.values()].filter((l) =>
        batch.some(
          (r) =>
            (r.phone && r.phone === l.phone) ||
            (r.email && r.email === l.email) ||
            (r.externalLeadId && r.externalLeadId === l.external_lead_id),
        ),
      );
      const { entries } = resolveBatch(
        'org',
        batch,
        hits.sort((a, b) => (a.id < b.id ? -1 : 1)),
        { onDuplicate, profile: 'default', at: 'now' },
      );
      for (const e of entries as Entry[])
        db.set(e.lead.id, { ...e.lead, additional_info: JSON.stringify(mergeInfo(e.infoBase, e.infoPatch).merged) });
    }
    return db;
  }
  const state = (db: Map<string, LeadRow>) =>
    [...db.values()]
      .map((l) => [l.phone, l.email, l.external_lead_id, l.first_name, JSON.parse(l.additional_info)])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  it('importing the same rows again changes nothing, and a run cut off after whole batches then run again ends as one clean run', () => {
    fc.assert(
      fc.property(
        fc.array(lead, { maxLength: 14 }),
        fc.integer({ min: 1, max: 5 }),
        fc.nat(),
        fc.constantFrom('skip' as const, 'update' as const),
        (rows, size, cut, policy) => {
          const clean = runBatches(new Map(), rows, size, policy);
          const once = state(clean);
          expect(state(runBatches(new Map(clean), rows, size, policy))).toEqual(once);
          const batches = Math.ceil(rows.length / size);
          const crashed = runBatches(new Map(), rows.slice(0, (cut % (batches + 1)) * size), size, policy);
          expect(state(runBatches(crashed, rows, size, policy))).toEqual(once);
          // Phones stay unique (the database's constraint).
          const phones = [...clean.values()].map((l) => l.phone).filter(Boolean);
          expect(new Set(phones).size).toBe(phones.length);
        },
      ),
      { numRuns: RUNS * 5 },
    );
  });
});
