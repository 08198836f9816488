import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  ExternalCheckClient,
  type ExternalCheckRequest,
  type ExternalCheckSettings,
} from '../../src/compliance/external-check.js';

const REQUEST: ExternalCheckRequest = {
  organizationId: 'org_1',
  leadId: 'lead_1',
  externalLeadId: null,
  channel: 'sms',
  address: '+15551234567',
  text: 'Hi Ann',
  messageId: 'msg_1',
  purpose: 'conversation',
};

interface Arrival {
  socket: number;
  /** How many requests this connection carried before this one. */
  before: number;
  id: string;
}

/**
 * A middleware on 127.0.0.1 that keeps connections alive and decides, per
 * request, from how many requests its connection carried before: answer
 * (allow), destroy the connection without a byte, or start an answer and then
 * destroy it. "Destroy the second request on a connection" is the race where
 * the middleware closes an idle keep-alive connection just as it is reused,
 * made deterministic.
 */
class Middleware {
  readonly arrivals: Arrival[] = [];
  private server: Server | undefined;
  private readonly count = new Map<Socket, { n: number; no: number }>();
  private sockets = 0;
  constructor(
    private readonly behave: (arrival: Arrival, index: number, res: ServerResponse, req: IncomingMessage) => void,
  ) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const seen = this.count.get(req.socket) ?? { n: 0, no: ++this.sockets };
        this.count.set(req.socket, { ...seen, n: seen.n + 1 });
        const arrival = { socket: seen.no, before: seen.n, id: String(req.headers['webhook-id']) };
        this.arrivals.push(arrival);
        this.behave(arrival, this.arrivals.length - 1, res, req);
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/check`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

/**
 * After an answer, undici checks an idle connection for a pending close (on the next turn of the event
 * loop) before it reuses it, and a request arriving meanwhile takes a new connection. Checks are seconds
 * apart in production; here the next one waits for that check, so it goes out on the idle connection.
 */
const idle = () => new Promise((resolve) => setTimeout(resolve, 10));

const allow = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"allow":true}');
const destroy = (_res: ServerResponse, req: IncomingMessage) => req.socket.destroy();

const running: { mw: Middleware; client: ExternalCheckClient }[] = [];
async function setUp(behave: ConstructorParameters<typeof Middleware>[0]) {
  const mw = new Middleware(behave);
  const url = await mw.start();
  const client = new ExternalCheckClient({ allowPrivateUrls: true });
  running.push({ mw, client });
  const settings: ExternalCheckSettings = { url, secret: 'a-plain-secret', timeoutMs: 5000, failureMode: 'closed' };
  return { mw, check: () => client.check(settings, REQUEST) };
}
afterEach(async () => {
  for (const { mw, client } of running.splice(0)) {
    await client.close();
    await mw.stop();
  }
});
afterAll(async () => {
  for (const { mw, client } of running.splice(0)) {
    await client.close();
    await mw.stop();
  }
});

describe('External Compliance Check on a reused keep-alive connection', () => {
  it('sends a request that a reused connection lost before any answer once more, on a new connection, and the send is allowed', async () => {
    const { mw, check } = await setUp((arrival, _i, res, req) =>
      arrival.before === 0 ? allow(res) : destroy(res, req),
    );
    expect(await check()).toMatchObject({ kind: 'allowed', detail: 'approved' });
    await idle();
    expect(await check()).toMatchObject({ kind: 'allowed', detail: 'approved' });
    // The second check went out on the first connection (destroyed unanswered), then once more on a new one.
    expect(mw.arrivals.map(({ socket, before }) => [socket, before])).toEqual([
      [1, 0],
      [1, 1],
      [2, 0],
    ]);
    expect(new Set(mw.arrivals.map((a) => a.id)).size).toBe(3);
  });

  it('fails closed when the new connection is lost too: one retry, never two', async () => {
    const { mw, check } = await setUp((_arrival, i, res, req) => (i === 0 ? allow(res) : destroy(res, req)));
    expect(await check()).toMatchObject({ kind: 'allowed' });
    await idle();
    const outcome = await check();
    expect(outcome).toMatchObject({ kind: 'blocked', detail: 'failed_closed' });
    expect(outcome.reason).toMatch(/^external compliance check failed: /);
    expect(mw.arrivals.map(({ socket, before }) => [socket, before])).toEqual([
      [1, 0],
      [1, 1],
      [2, 0],
    ]);
  });

  it('fails closed without a retry when a middleware resets every request, on a fresh connection each time', async () => {
    const { mw, check } = await setUp((_arrival, _i, res, req) => destroy(res, req));
    for (let i = 0; i < 3; i += 1) {
      expect(await check()).toMatchObject({ kind: 'blocked', detail: 'failed_closed' });
      await idle();
    }
    expect(mw.arrivals.map(({ socket, before }) => [socket, before])).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
    ]);
  });

  it('does not retry once an answer has started, even on a reused connection', async () => {
    const { mw, check } = await setUp((arrival, _i, res, req) => {
      if (arrival.before === 0) return allow(res);
      // The status line and part of the headers, then the connection is gone.
      req.socket.write('HTTP/1.1 200 OK\r\ncontent-type: appl', () => req.socket.destroy());
    });
    expect(await check()).toMatchObject({ kind: 'allowed' });
    await idle();
    expect(await check()).toMatchObject({ kind: 'blocked', detail: 'failed_closed' });
    expect(mw.arrivals.map(({ socket, before }) => [socket, before])).toEqual([
      [1, 0],
      [1, 1],
    ]);
  });
});
