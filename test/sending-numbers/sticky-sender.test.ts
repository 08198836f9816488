import { afterAll, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { startFakeTwilio } from '../support/fake-twilio.js';
import { createLead, describeEachDialect, type Client, type TestServer } from '../support/harness.js';
import {
  ALWAYS_OPEN,
  addNumber,
  numberIn,
  send,
  settledAfterStep,
  twilioEnv,
  twilioWebhook,
  until,
} from './helpers.js';
import { MIDDAY, startEachTestInDaytime } from '../support/clock-hours.js';

const fake = await startFakeTwilio('ACpool', 'pool-secret');
afterAll(() => fake.close());

let orgs = 0;
/** A fresh organization per test: the pool and its lead counts start empty. */
async function freshOrg(ts: TestServer): Promise<Client> {
  const client = await ts.clientWithScopes([...SCOPES], `sticky-${process.pid}-${orgs++}`);
  expect((await client.patch('/settings', ALWAYS_OPEN)).status).toBe(200);
  return client;
}

/** The From of the provider request that carried this text. */
async function fromOf(text: string): Promise<string> {
  const [req] = await until(
    () => fake.accepted('Messages', (p) => p.Body === text),
    (r) => r.length === 1,
  );
  return req!.params.From!;
}

let texts = 0;
async function sendAndFrom(
  ts: Pick<TestServer, 'runDue'>,
  client: Client,
  leadId: string,
  body = `hello ${texts++}`,
): Promise<string> {
  const id = await send(client, leadId, body);
  expect((await settledAfterStep(ts, client, leadId, id)).status).toBe('sent');
  return fromOf(body);
}

describeEachDialect(
  'sticky sender',
  (ctx) => {
    startEachTestInDaytime(ctx);
    it('a lead meets a number of its area code first; others go to the least loaded, the oldest on a tie', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const sf = await addNumber(client, { number: numberIn('415'), kind: 'longCode', ratePerSecond: 100 });
      const ny = await addNumber(client, { number: numberIn('212'), kind: 'longCode', ratePerSecond: 100 });
      const a = await createLead(client, { phone: numberIn('415') });
      const b = await createLead(client, { phone: numberIn('212') });
      expect(await sendAndFrom(ctx(), client, a)).toBe(sf.number);
      expect(await sendAndFrom(ctx(), client, b)).toBe(ny.number);
      const c = await createLead(client, { phone: numberIn('650') });
      expect(await sendAndFrom(ctx(), client, c)).toBe(sf.number);
      const d = await createLead(client, { phone: numberIn('650') });
      expect(await sendAndFrom(ctx(), client, d)).toBe(ny.number);
      expect((await client.get(`/sendingNumbers/${sf.id}`)).body.assignedLeads).toBe(2);
    });

    it('a lead always hears from the same number, even when another would now be nearer or less loaded', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const first = await addNumber(client, { number: numberIn('303'), kind: 'longCode', ratePerSecond: 100 });
      const lead = await createLead(client, { phone: numberIn('720') });
      expect(await sendAndFrom(ctx(), client, lead)).toBe(first.number);
      await addNumber(client, { number: numberIn('720'), kind: 'longCode', ratePerSecond: 100 });
      expect(await sendAndFrom(ctx(), client, lead)).toBe(first.number);
      expect(await sendAndFrom(ctx(), client, lead)).toBe(first.number);
    });

    it('outside NANP the country calling code is preferred', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      await addNumber(client, { number: numberIn('646'), kind: 'longCode', ratePerSecond: 100 });
      const uk = await addNumber(client, {
        number: `+4477009${String(10000 + (process.pid % 80000)).slice(-5)}`,
        kind: 'longCode',
        ratePerSecond: 100,
      });
      // The US number is older (it wins a tie) and, after the first lead, the less loaded: the country still wins.
      const l1 = await createLead(client, { phone: `+4477009${String(20000 + (process.pid % 70000)).slice(-5)}` });
      const l2 = await createLead(client, { phone: `+4477009${String(30000 + (process.pid % 60000)).slice(-5)}` });
      expect(await sendAndFrom(ctx(), client, l1)).toBe(uk.number);
      expect(await sendAndFrom(ctx(), client, l2)).toBe(uk.number);
    });

    it('concurrent first sends to one lead stick it to one number', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      for (const area of ['415', '212', '303'])
        await addNumber(client, { number: numberIn(area), kind: 'longCode', ratePerSecond: 100 });
      // An Alaskan lead (907: Adak and Anchorage): DAYTIME is 07:00 in Adak, so this test runs at MIDDAY (10:00 there).
      ts.clock.set(MIDDAY);
      const lead = await createLead(client, { phone: numberIn('907') });
      const bodies = Array.from({ length: 6 }, (_, i) => `together ${texts}-${i}`);
      texts += 1;
      const ids = await Promise.all(bodies.map((b) => send(client, lead, b)));
      for (const id of ids) expect((await settledAfterStep(ctx(), client, lead, id)).status).toBe('sent');
      const froms = new Set(await Promise.all(bodies.map(fromOf)));
      expect(froms.size).toBe(1);
      const counts = (await client.get('/sendingNumbers')).body.sendingNumbers.map(
        (n: { assignedLeads: number }) => n.assignedLeads,
      );
      expect(counts.reduce((x: number, y: number) => x + y, 0)).toBe(1);
    });

    it('a lead stuck to a deleted number gets another at its next send, and keeps that one', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const gone = await addNumber(client, { number: numberIn('415'), kind: 'longCode', ratePerSecond: 100 });
      const kept = await addNumber(client, { number: numberIn('212'), kind: 'longCode', ratePerSecond: 100 });
      const lead = await createLead(client, { phone: numberIn('415') });
      expect(await sendAndFrom(ctx(), client, lead)).toBe(gone.number);
      expect((await client.del(`/sendingNumbers/${gone.id}`)).status).toBe(200);
      expect(await sendAndFrom(ctx(), client, lead)).toBe(kept.number);
      await addNumber(client, { number: numberIn('415'), kind: 'longCode', ratePerSecond: 100 });
      expect(await sendAndFrom(ctx(), client, lead)).toBe(kept.number);
    });

    it('without a pool number of the channel, the settings number sends, unpaced, as before', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const settingsNumber = numberIn('628');
      expect((await client.patch('/settings', { sendingNumber: settingsNumber })).status).toBe(200);
      const lead = await createLead(client, { phone: numberIn('415') });
      expect(await sendAndFrom(ctx(), client, lead)).toBe(settingsNumber);
      // A voice-only pool does not take over SMS.
      await addNumber(client, { number: numberIn('415'), kind: 'longCode', channel: 'voice' });
      const bodies = [0, 1, 2, 3, 4].map((i) => `unpaced ${texts}-${i}`);
      texts += 1;
      const started = Date.now();
      const ids = await Promise.all(bodies.map((b) => send(client, lead, b)));
      for (const id of ids) expect((await settledAfterStep(ctx(), client, lead, id)).status).toBe('sent');
      expect(new Set(await Promise.all(bodies.map(fromOf)))).toEqual(new Set([settingsNumber]));
      // A long code's pace would take 4 s for five segments.
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it('the message records its segments: one emoji turns 100 characters into 2 UCS-2 segments', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      await addNumber(client, { number: numberIn('415'), kind: 'longCode', ratePerSecond: 100 });
      const lead = await createLead(client, { phone: numberIn('415') });
      const plain = await send(client, lead, 'a'.repeat(100));
      const emoji = await send(client, lead, `${'b'.repeat(98)}😀`);
      expect((await settledAfterStep(ctx(), client, lead, plain)).segments).toBe(1);
      expect((await settledAfterStep(ctx(), client, lead, emoji)).segments).toBe(2);
    });

    it('inbound Twilio SMS to a pool number reach the organization that owns it', async () => {
      const ts = ctx();
      const client = await freshOrg(ts);
      const pool = await addNumber(client, { number: numberIn('332'), kind: 'tollFree' });
      const phone = numberIn('415');
      const lead = await createLead(client, { phone });
      const res = await twilioWebhook(ts, '/v1/providers/twilio/sms', {
        AccountSid: 'ACpool',
        MessageSid: `SM${Date.now().toString(16).padEnd(32, '0')}`,
        From: phone,
        To: pool.number,
        Body: 'Is it still free?',
        NumMedia: '0',
      });
      expect(res.status).toBe(200);
      const history = (await client.get(`/leads/${lead}/messages`)).body.messages;
      expect(history).toContainEqual(
        expect.objectContaining({ direction: 'inbound', content: { text: 'Is it still free?' } }),
      );
    });
  },
  twilioEnv(fake),
);
