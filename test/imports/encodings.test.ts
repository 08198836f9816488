import { expect, it } from 'vitest';
import { expectError } from '../support/assert.js';
import { describeEachDialect } from '../support/harness.js';
import { allLeads, importCsv, importPhone, postCsv } from './support.js';

/**
 * What spreadsheets write (csv-source.ts): "CSV UTF-8" (BOM), "Unicode text"
 * (UTF-16 LE with a BOM, tab-separated), plain "CSV" on Windows (Windows-1252,
 * no BOM). A byte the chosen encoding cannot read stops the import with a
 * message naming the way out; it never lands in a lead's name as a "?".
 */
describeEachDialect('imports read the encodings spreadsheets write', (ctx) => {
  const client = () => ctx().clientWithScopes(['leads:read', 'leads:write'], 'imp-encodings');
  const byPhone = async (c: Awaited<ReturnType<typeof client>>, phone: string) =>
    (await allLeads(c)).find((l) => l.phone === phone);

  it('UTF-16 LE with its BOM and tabs (Excel "Unicode text")', async () => {
    const c = await client();
    const phone = importPhone();
    const text = `First Name\tLast Name\tMobile\r\nZoë\tÅngström\t${phone}\r\n`;
    const body = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    expect(await importCsv(c, body)).toMatchObject({ status: 'completed', created: 1, rejected: 0 });
    expect(await byPhone(c, phone)).toMatchObject({ firstName: 'Zoë', lastName: 'Ångström' });
  });

  it('UTF-16 BE with its BOM', async () => {
    const c = await client();
    const phone = importPhone();
    const le = Buffer.from(`First Name,Mobile\nJosé,${phone}\n`, 'utf16le');
    const be = Buffer.alloc(le.length);
    for (let i = 0; i < le.length; i += 2) [be[i], be[i + 1]] = [le[i + 1]!, le[i]!];
    expect(await importCsv(c, Buffer.concat([Buffer.from([0xfe, 0xff]), be]))).toMatchObject({
      status: 'completed',
      created: 1,
    });
    expect((await byPhone(c, phone))!.firstName).toBe('José');
  });

  it('Windows-1252 without a BOM is recognised from its first bytes', async () => {
    const c = await client();
    const phone = importPhone();
    const body = Buffer.from(`First Name,Last Name,Mobile\nRené,Müller,${phone}\n`, 'latin1');
    expect(await importCsv(c, body)).toMatchObject({ status: 'completed', created: 1 });
    expect(await byPhone(c, phone)).toMatchObject({ firstName: 'René', lastName: 'Müller' });
  });

  it('a Windows-1252 byte deep in a UTF-8 file stops the import with the way out; the same file with encoding=windows-1252 finishes it', async () => {
    const c = await client();
    // Past the first 64 KiB the encoding was chosen from: 700 rows of about 110 bytes (a note pads them), the odd
    // one at 650 (byte 71,000 or so). Rows, not bytes, are what an import costs: few and long keeps it quick.
    const phones = Array.from({ length: 700 }, () => importPhone());
    const note = 'n'.repeat(80);
    const lines = phones.map((p, i) =>
      i === 650 ? Buffer.from(`Chloé,${p},${note}\n`, 'latin1') : Buffer.from(`Row${i},${p},${note}\n`),
    );
    const body = Buffer.concat([Buffer.from('First Name,Mobile,Notes\n'), ...lines]);
    expect(body.indexOf(Buffer.from('Chlo'))).toBeGreaterThan(64 * 1024);
    const failed = await importCsv(c, body);
    expect(failed).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/not valid utf-8 .*encoding=windows-1252/),
    });
    // At most the whole batches before the bad byte are in (the reader runs ahead of the writer, so often none); nothing garbled.
    expect(failed.created).toBeLessThan(650);
    expect((await allLeads(c)).some((l) => /\uFFFD|\?/.test(l.firstName))).toBe(false);
    const done = await importCsv(c, body, { encoding: 'windows-1252' });
    expect(done).toMatchObject({
      status: 'completed',
      created: 700 - failed.created,
      options: { encoding: 'windows-1252' },
    });
    expect((await byPhone(c, phones[650]!))!.firstName).toBe('Chloé');
  });

  it('an unknown encoding is a 400 naming the choices, and records nothing', async () => {
    const c = await client();
    expectError(
      await postCsv(c, `First Name,Mobile\nA,${importPhone()}\n`, { encoding: 'ebcdic' }),
      400,
      /encoding must be one of: utf-8, utf-16le, utf-16be, windows-1252/,
    );
  });
});
