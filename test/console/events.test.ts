import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer } from '../../src/server.js';
import { buildCli, freePort, killStarted, spawnParley, waitReady } from '../support/processes.js';
import { clientFor, createLead, describeEachDialect, type TestServer } from '../support/harness.js';
import { consoleClient } from './support.js';
import { openStream } from './stream.js';

async function inbound(ts: TestServer, leadId: string, text: string, base = ts.url) {
  const phone = (await ts.acme.get(`/leads/${leadId}`)).body.phone as string;
  const res = await clientFor(base, ts.acme.key).post('/inbound', { channel: 'sms', from: phone, text });
  expect(res.status).toBe(200);
}

describeEachDialect(
  'console event stream',
  (ctx) => {
    afterAll(killStarted);

    it("streams the organization's events (an inbound message) as named SSE events, and none of another organization", async () => {
      const ts = ctx();
      const agent = await consoleClient(ts, 'agent');
      const stream = await openStream(ts.url, agent);
      expect(stream.res.status).toBe(200);
      expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(stream.res.headers.get('content-security-policy')).toContain("default-src 'self'");
      const betaLead = await createLead(ts.beta, { isAiOn: false });
      const lead = await createLead(ts.acme, { isAiOn: false });
      await clientFor(ts.url, ts.beta.key).post('/inbound', {
        channel: 'sms',
        from: (await ts.beta.get(`/leads/${betaLead}`)).body.phone,
        text: 'beta says hi',
      });
      await inbound(ts, lead, 'hello console');
      const got = await stream.waitFor((e) => e.event === 'message.received');
      expect(got.data).toMatchObject({ type: 'message.received', leadId: lead, at: expect.any(String) });
      expect(JSON.stringify(got.data)).toContain('hello console');
      expect(got.id).toMatch(/^[0-9a-f-]{36}$/);
      // A later acme message as the step after beta's: once its event is here, beta's (earlier) one was fanned out.
      await inbound(ts, lead, 'and again');
      await stream.waitFor((e) => e.event === 'message.received' && JSON.stringify(e.data).includes('and again'));
      expect(stream.events.some((e) => e.data.leadId === betaLead)).toBe(false);
      // Each event once.
      expect(stream.events.filter((e) => e.id === got.id)).toHaveLength(1);
      await stream.close();
    });

    it('a viewer may listen; without a session the stream is a 401', async () => {
      const ts = ctx();
      const res = await fetch(`${ts.url}/console/api/events`);
      expect(res.status).toBe(401);
      const viewer = await consoleClient(ts, 'viewer');
      const stream = await openStream(ts.url, viewer);
      expect(stream.res.status).toBe(200);
      await stream.close();
    });

    it('closing the server ends open streams instead of waiting on them', async () => {
      const ts = ctx();
      const own = await startServer({ ...ts.config, port: 0, runWorker: false });
      const agent = await consoleClient({ ...ts, url: own.address }, 'agent');
      const stream = await openStream(own.address, agent);
      expect(stream.res.status).toBe(200);
      const started = Date.now();
      await own.stop();
      expect(Date.now() - started).toBeLessThan(3000);
      await new Promise((r) => setTimeout(r, 100));
      expect(stream.ended).toBe(true);
    });
  },
  { PARLEY_CONSOLE_EVENTS_POLL_MS: '100' },
);

describeEachDialect(
  'console event stream across processes',
  (ctx) => {
    beforeAll(buildCli, 300_000);
    afterAll(killStarted);

    it("an event written by a second server process on the same database reaches the first one's stream", async (t) => {
      const ts = ctx();
      if (ts.dialect !== 'postgres') return t.skip();
      const agent = await consoleClient(ts, 'agent');
      const stream = await openStream(ts.url, agent);
      const port = await freePort();
      const other = spawnParley(['serve', '--no-worker'], {
        DATABASE_URL: ts.config.databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
      });
      const base = `http://127.0.0.1:${port}`;
      await waitReady(other, base);
      const lead = await createLead(clientFor(base, ts.acme.key), { isAiOn: false });
      await inbound(ts, lead, 'via the other process', base);
      const got = await stream.waitFor((e) => e.event === 'message.received' && e.data.leadId === lead);
      expect(JSON.stringify(got.data)).toContain('via the other process');
      await stream.close();
      await other.stop();
    }, 60_000);
  },
  { PARLEY_CONSOLE_EVENTS_POLL_MS: '100' },
);
