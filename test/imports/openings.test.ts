import { afterAll, beforeAll, expect, it } from 'vitest';
import { runImport, type ImportOptions } from '../../src/imports/importer.js';
import { findOrganizationByName } from '../../src/organizations/organizations.repository.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { describeEachDialect, type Client, type TestServer } from '../support/harness.js';
import { allLeads, importCsv, importPhone } from './support.js';
import { startEachTestInDaytime } from '../support/clock-hours.js';

const SID = 'ACimport';
const TOKEN = 'secret';
const fake = await startFakeTwilio(SID, TOKEN);
afterAll(() => fake.close());

const ENV = {
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_API_BASE_URL: fake.url,
  PARLEY_WORKER_POLL_MS: '20',
  PARLEY_JOB_RETRY_SCHEDULE: '50ms,50ms',
};
const ALWAYS_OPEN = { contactHours: { start: '00:00', end: '00:00' } };
let numbers = 0;
const sendingNumber = () => `+1628444${String(1000 + ((process.pid + numbers++) % 9000)).padStart(4, '0')}`;

/** An organization with a sending number, open around the clock, and a profile whose opening is a template. */
async function greetingOrg(ts: TestServer, name: string): Promise<{ client: Client; organizationId: string }> {
  const client = await ts.clientWithScopes(
    ['leads:read', 'leads:write', 'messages:write', 'settings:write', 'profiles:write', 'dnc:write'],
    name,
  );
  expect((await client.patch('/settings', { ...ALWAYS_OPEN, sendingNumber: sendingNumber() })).status).toBe(200);
  expect(
    (await client.post('/customerProfiles', { name: 'greeter', openingMessage: 'Hi {{firstName}}, welcome' })).status,
  ).toBe(201);
  const org = await findOrganizationByName(ts.server.store.db, name);
  return { client, organizationId: org!.id };
}

async function messagesOf(client: Client, leadId: string) {
  return (await client.get(`/leads/${leadId}/messages`)).body.messages as {
    id: string;
    status: string;
    statusReason: string | null;
    content: { text: string };
  }[];
}

/** The lead's messages after the worker's step: every opening due has been judged and sent or blocked. */
async function messagesAfterStep(ts: TestServer, client: Client, leadId: string) {
  await ts.runDue();
  const list = await messagesOf(client, leadId);
  if (list.length === 0 || list.some((m) => m.status === 'scheduled' || m.status === 'sending'))
    throw new Error(`messages of ${leadId} not settled after the step: ${JSON.stringify(list)}`);
  return list;
}

const openingsOf = (ts: TestServer, organizationId: string) =>
  ts.server.store.db
    .selectFrom('lead_openings')
    .select(['lead_id'])
    .where('organization_id', '=', organizationId)
    .execute();

describeEachDialect(
  'imports and openings',
  (ctx) => {
    startEachTestInDaytime(ctx);
    let org: { client: Client; organizationId: string };
    beforeAll(async () => {
      org = await greetingOrg(ctx(), 'importer-greets');
    });

    it('imports opted-out and DNC numbers (the organization sees them) but the gate blocks their openings; others are sent once', async () => {
      const { client } = org;
      const [optedOut, dnc, fine] = [importPhone(), importPhone(), importPhone()];
      // An opt-out outlives the lead that made it: erase the lead, the suppression stays with the number.
      const old = (await client.post('/leads/create', { firstName: 'Gone', phone: optedOut })).body.id;
      expect((await client.post(`/leads/${old}/unsubscribe`, {})).status).toBe(200);
      expect((await client.del(`/leads/${old}`)).status).toBe(200);
      expect((await client.post('/dnc/register', { phone: dnc })).status).toBe(200);

      const csv = `First Name,Phone\nOpt,${optedOut}\nDnc,${dnc}\nFine,${fine}\n`;
      const done = await importCsv(client, csv, { profile: 'greeter', startConversations: 'true' });
      expect(done).toMatchObject({ status: 'completed', created: 3, rejected: 0 });
      const leads = await allLeads(client);
      const [lo, ld, lf] = [optedOut, dnc, fine].map((p) => leads.find((l) => l.phone === p));
      expect(lo).toMatchObject({
        customerProfile: 'greeter',
        subscriptions: { sms: 'unsubscribed', voice: 'unsubscribed' },
      });
      expect(ld).toMatchObject({ isDoNotContact: true, subscriptions: { sms: 'subscribed' } });

      const ts = ctx();
      const [mo, md, mf] = [
        await messagesAfterStep(ts, client, lo!.id),
        await messagesAfterStep(ts, client, ld!.id),
        await messagesAfterStep(ts, client, lf!.id),
      ];
      expect(mo.map((m) => m.status)).toEqual(['blocked']);
      expect(md.map((m) => m.status)).toEqual(['blocked']);
      expect(mf.map((m) => [m.status, m.content.text])).toEqual([['sent', 'Hi Fine, welcome']]);
      expect(fake.accepted('Messages', (p) => p.To === optedOut || p.To === dnc)).toHaveLength(0);
      expect(fake.accepted('Messages', (p) => p.To === fine)).toHaveLength(1);

      // The same file again: nothing new, no second opening, nothing more sent.
      expect(await importCsv(client, csv, { profile: 'greeter', startConversations: 'true' })).toMatchObject({
        created: 0,
        updated: 0,
        skipped: 3,
      });
      await ts.runDue();
      for (const lead of [lo, ld, lf]) expect(await messagesOf(client, lead!.id)).toHaveLength(1);
      expect(fake.accepted('Messages', (p) => p.To === fine)).toHaveLength(1);
    });

    it('without startConversations nobody is greeted; a later run with it greets each never-greeted lead once', async () => {
      const ts = ctx();
      const { client, organizationId } = org;
      const phones = [importPhone(), importPhone()];
      const csv = `First Name,Phone\n${phones.map((p, i) => `Quiet${i},${p}`).join('\n')}\n`;
      await importCsv(client, csv, { profile: 'greeter' });
      const leads = (await allLeads(client)).filter((l) => phones.includes(l.phone!));
      // After the step that would have sent an opening, none was made.
      await ts.runDue();
      for (const l of leads) expect(await messagesOf(client, l.id)).toHaveLength(0);
      const before = (await openingsOf(ts, organizationId)).length;
      await importCsv(client, csv, { profile: 'greeter', startConversations: 'true' });
      await importCsv(client, csv, { profile: 'greeter', startConversations: 'true' });
      expect((await openingsOf(ts, organizationId)).length).toBe(before + 2);
      for (const l of leads) expect(await messagesOf(client, l.id)).toHaveLength(1);
    });

    it('an import cut off after some batches, then run again, ends exactly as one clean run', async () => {
      const ts = ctx();
      const crashed = await greetingOrg(ts, 'importer-crash');
      const clean = await greetingOrg(ts, 'importer-clean');
      const phones = Array.from({ length: 60 }, () => importPhone());
      const lines = ['First Name,Phone,Email,Stage'];
      for (let i = 0; i < 120; i++) {
        // Rows 60..119 repeat the phones of 0..59 with a later stage: duplicates across batches.
        const p = phones[i % 60]!;
        lines.push(
          i === 77 ? 'Broken,12,,' : `N${i % 60},${p},n${i % 60}.crash@example.com,${i < 60 ? 'new' : 'warm'}`,
        );
      }
      const csv = Buffer.from(`${lines.join('\n')}\n`);
      const options: ImportOptions = {
        profile: 'greeter',
        onDuplicate: 'update',
        startConversations: true,
        dryRun: false,
        map: new Map(),
        batchSize: 10,
      };
      async function* cutOff(at: number) {
        // Slowly, as from a disk or a network: the batches read so far commit before the failure. A cut
        // at 30 % of the bytes falls inside the first 60 rows (the distinct leads), so the partial run made some of them.
        for (let i = 0; i < at; i += 256) {
          yield csv.subarray(i, Math.min(i + 256, at));
          await new Promise((r) => setTimeout(r, 15));
        }
        throw new Error('simulated crash');
      }
      async function* whole() {
        yield csv;
      }
      await expect(
        runImport(ts.server.deps, crashed.organizationId, null, cutOff(Math.floor(csv.length * 0.3)), options),
      ).rejects.toThrow('simulated crash');
      const partial = (await allLeads(crashed.client)).length;
      expect(partial).toBeGreaterThan(0);
      expect(partial).toBeLessThan(60);
      await runImport(ts.server.deps, crashed.organizationId, null, whole(), options);
      const cleanCounts = await runImport(ts.server.deps, clean.organizationId, null, whole(), options);
      expect(cleanCounts).toMatchObject({ total: 120, created: 60, updated: 59, rejected: 1, openings: 60 });

      const state = async (o: typeof clean) => {
        const leads = await allLeads(o.client);
        const openings = await openingsOf(ts, o.organizationId);
        return leads
          .map((l) => ({
            phone: l.phone,
            email: l.email,
            firstName: l.firstName,
            info: l.additionalInfo,
            profile: l.customerProfile,
            openings: openings.filter((x) => x.lead_id === l.id).length,
          }))
          .sort((a, b) => a.phone!.localeCompare(b.phone!));
      };
      const [a, b] = [await state(crashed), await state(clean)];
      expect(a).toHaveLength(60);
      expect(a).toEqual(b);
      expect(a.every((l) => l.openings === 1 && l.info.Stage === (l.phone === phones[17] ? 'new' : 'warm'))).toBe(true);
    });
  },
  ENV,
);
