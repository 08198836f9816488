import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { statusAfterStep } from '../support/messages.js';
import { createLead, describeEachDialect } from '../support/harness.js';

/** The organization's middleware: decides by the text it is asked about, and remembers what it was asked. */
let middleware: Server;
let url = '';
const asked: { text: string; channel: string; address: string; leadId: string }[] = [];

beforeAll(async () => {
  middleware = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { data } = JSON.parse(body) as { data: { text: string; channel: string; address: string; leadId: string } };
      asked.push(data);
      if (data.text.includes('hang')) return; // never answers: the timeout decides
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          data.text.includes('forbidden') ? { allow: false, reason: 'on our internal block list' } : { allow: true },
        ),
      );
    });
  });
  await new Promise<void>((r) => middleware.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(middleware.address() as AddressInfo).port}/check`;
});
afterAll(() => new Promise<void>((r) => middleware.close(() => r())));

describeEachDialect(
  'the External Compliance Check in the gate',
  (ctx) => {
    it('is asked about each send after the other checks; its no blocks, its yes sends, a timeout fails closed; every outcome is kept', async () => {
      const ts = ctx();
      ts.clock.set('2026-06-10T19:00:00Z'); // noon in Los Angeles
      const set = await ts.acme.patch('/settings', {
        externalCheck: { url, secret: 'whsec_' + Buffer.from('k'.repeat(32)).toString('base64'), timeoutMs: 400 },
      });
      expect(set.body.externalCheck).toEqual({ url, timeoutMs: 400, failureMode: 'closed', secretSet: true });
      const leadId = await createLead(ts.acme);
      const ok = await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'hello there' });
      const no = await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'a forbidden offer' });
      const slow = await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'please hang' });
      expect(await statusAfterStep(ts, ts.acme, leadId, ok.body.id, (s) => s === 'sent')).toMatchObject({
        statusCode: null,
      });
      expect(await statusAfterStep(ts, ts.acme, leadId, no.body.id, (s) => s === 'blocked')).toMatchObject({
        statusCode: 'EXTERNAL_CHECK',
        statusReason: 'on our internal block list',
      });
      expect(await statusAfterStep(ts, ts.acme, leadId, slow.body.id, (s) => s === 'blocked')).toMatchObject({
        statusCode: 'EXTERNAL_CHECK',
        statusReason: expect.stringMatching(/timeout/),
      });
      expect(
        asked
          .filter((a) => a.leadId === leadId)
          .map((a) => a.text)
          .sort(),
      ).toEqual(['a forbidden offer', 'hello there', 'please hang']);
      const checks = await ts.server.store.db
        .selectFrom('send_checks')
        .select(['message_id', 'outcome', 'detail'])
        .where('lead_id', '=', leadId)
        .execute();
      expect(new Map(checks.map((c) => [c.message_id, `${c.outcome}/${c.detail}`]))).toEqual(
        new Map([
          [ok.body.id, 'allowed/approved'],
          [no.body.id, 'blocked/rejected'],
          [slow.body.id, 'blocked/failed_closed'],
        ]),
      );
      // An opted-out lead is never shown to the middleware: the gate stops the send first.
      await ts.acme.post(`/leads/${leadId}/unsubscribe`, { channels: ['sms'] });
      const after = await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'hello again', sendWhenOff: true });
      expect(after.body.status).toBe('blocked');
      expect(asked.some((a) => a.text === 'hello again')).toBe(false);
      await ts.acme.patch('/settings', { externalCheck: null });
    });

    it('refuses an external check URL that is not https unless private URLs are allowed, naming the setting', async () => {
      const ts = ctx();
      const res = await ts.beta.patch('/settings', {
        externalCheck: { url: 'ftp://example.com/x', secret: 's'.repeat(20) },
      });
      expect(res).toMatchObject({ status: 400, body: { message: expect.stringMatching(/https/) } });
    });
  },
  { PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true', PARLEY_WORKER_POLL_MS: '20' },
);
