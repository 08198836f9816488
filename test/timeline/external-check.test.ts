import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLead, describeEachDialect } from '../support/harness.js';
import { statusAfterStep } from '../support/messages.js';

/** The organization's middleware: refuses any text with "forbidden". */
let middleware: Server;
let url = '';

beforeAll(async () => {
  middleware = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { data } = JSON.parse(body) as { data: { text: string } };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(data.text.includes('forbidden') ? { allow: false, reason: 'STATE_DNC' } : { allow: true }),
      );
    });
  });
  await new Promise<void>((r) => middleware.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(middleware.address() as AddressInfo).port}/check`;
});
afterAll(() => new Promise<void>((r) => middleware.close(() => r())));

describeEachDialect(
  'the timeline and the External Compliance Check (docs.apten.ai list-events: compliance blocks)',
  (ctx) => {
    it('a send the check refused is COMPLIANCE_BLOCKED with its answer; an allowed check is not shown', async () => {
      const ts = ctx();
      ts.clock.set('2026-06-10T19:00:00Z'); // noon in Los Angeles
      await ts.acme.patch('/settings', {
        externalCheck: { url, secret: 'whsec_' + Buffer.from('t'.repeat(32)).toString('base64'), timeoutMs: 2000 },
      });
      const leadId = await createLead(ts.acme);
      const ok = (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'hello' })).body;
      const no = (await ts.acme.post(`/leads/${leadId}/sendMessage`, { message: 'a forbidden offer' })).body;
      await statusAfterStep(ts, ts.acme, leadId, ok.id, (s) => s === 'sent');
      await statusAfterStep(ts, ts.acme, leadId, no.id, (s) => s === 'blocked');
      const res = await ts.acme.get(`/leads/${leadId}/events?since=2026-01-01T00:00:00Z`);
      expect(res.status).toBe(200);
      const byId = new Map(res.body.events.map((e: { id: string }) => [e.id, e]));
      expect(byId.get(ok.id)).toMatchObject({ type: 'MESSAGE', data: { status: 'sent' } });
      expect(byId.get(no.id)).toMatchObject({
        type: 'COMPLIANCE_BLOCKED',
        data: {
          channel: 'sms',
          reason: 'EXTERNAL_CHECK',
          source: 'http',
          triggeredBy: 'user',
          reasonText: 'STATE_DNC',
          externalCheck: { detail: 'rejected', reason: 'STATE_DNC' },
        },
      });
      expect(res.body.events).toHaveLength(2);
      await ts.acme.patch('/settings', { externalCheck: null });
    });
  },
  { PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true', PARLEY_WORKER_POLL_MS: '20' },
);
