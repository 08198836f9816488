import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ExternalCheckClient,
  type ExternalCheckOutcome,
  type ExternalCheckRequest,
  type ExternalCheckSettings,
} from '../../src/compliance/external-check.js';

/**
 * The External Compliance Check against a real HTTP server on 127.0.0.1
 * playing the customer's middleware. The middleware checks every request the
 * way a customer would, with its own HMAC code (not the project's signer):
 * an unsigned or badly signed request is answered 401, so it cannot pass.
 */

const NOW = new Date('2025-03-04T05:06:07.891Z');
const NOW_SECONDS = '1741064767';
/** The key bytes, known to the test directly; the client is only given the whsec_ form. */
const KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => (i * 37 + 11) % 256));
const SECRET = `whsec_${KEY.toString('base64')}`;

const REQUEST: ExternalCheckRequest = {
  organizationId: 'org_1',
  leadId: 'lead_1',
  externalLeadId: 'crm-42',
  channel: 'sms',
  address: '+15551234567',
  text: 'Hi Ann, still interested in the 3-bed on Elm St?',
  messageId: 'msg_1',
  purpose: 'conversation',
};

interface Arrival {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  json: unknown;
  signatureValid: boolean;
}

type Behave = (req: IncomingMessage, res: ServerResponse) => void;

/** Independent Standard Webhooks verification: HMAC-SHA256 over the exact bytes `id.timestamp.body`. */
function verify(key: Buffer, headers: IncomingHttpHeaders, raw: Buffer): boolean {
  const id = headers['webhook-id'];
  const ts = headers['webhook-timestamp'];
  const sig = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof ts !== 'string' || typeof sig !== 'string') return false;
  const expected = createHmac('sha256', key)
    .update(Buffer.from(`${id}.${ts}.`, 'utf8'))
    .update(raw)
    .digest();
  return sig.split(' ').some((part) => {
    if (!part.startsWith('v1,')) return false;
    const given = Buffer.from(part.slice(3), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const json =
  (status: number, body: unknown): Behave =>
  (_req, res) => {
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(typeof body === 'string' ? body : JSON.stringify(body));
  };
const hang: Behave = () => {};

class Middleware {
  readonly arrivals: Arrival[] = [];
  connections = 0;
  private readonly routes = new Map<string, { behave: Behave; key: Buffer }>();
  private server: Server | undefined;
  private next = 0;
  base = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const path = req.url ?? '';
        const route = this.routes.get(path);
        const signatureValid = route ? verify(route.key, req.headers, raw) : false;
        let parsed: unknown = null;
        try {
          parsed = JSON.parse(raw.toString('utf8'));
        } catch {
          parsed = null;
        }
        this.arrivals.push({ method: req.method ?? '', path, headers: req.headers, raw, json: parsed, signatureValid });
        if (!route) return void res.writeHead(404).end();
        if (!signatureValid) return void res.writeHead(401).end('{"allow":true}');
        route.behave(req, res);
      });
    });
    this.server.on('connection', () => {
      this.connections += 1;
    });
    // Idle keep-alive sockets stay open longer than any pause of a loaded machine between two checks, so
    // a check never meets a socket the server is closing at that instant (a reset, which fails closed).
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A fresh path answered by `behave`, verifying signatures with `key`. */
  route(behave: Behave, key = KEY): string {
    const path = `/check/${++this.next}`;
    this.routes.set(path, { behave, key });
    return `${this.base}${path}`;
  }

  at(url: string): Arrival[] {
    const path = new URL(url).pathname;
    return this.arrivals.filter((a) => a.path === path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

const mw = new Middleware();
const clients: ExternalCheckClient[] = [];
const client = (allowPrivateUrls = true) => {
  const c = new ExternalCheckClient({ allowPrivateUrls, now: () => NOW });
  clients.push(c);
  return c;
};
let shared: ExternalCheckClient;

const settings = (url: string, over: Partial<ExternalCheckSettings> = {}): ExternalCheckSettings => ({
  url,
  secret: SECRET,
  timeoutMs: 2000,
  failureMode: 'closed',
  ...over,
});

const failedClosed = (reason: string): ExternalCheckOutcome => ({
  kind: 'blocked',
  detail: 'failed_closed',
  reason,
  latencyMs: expect.any(Number) as number,
});
const failedOpen = (reason: string): ExternalCheckOutcome => ({
  kind: 'allowed',
  detail: 'failed_open',
  reason,
  latencyMs: expect.any(Number) as number,
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  await mw.start();
  shared = client();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await mw.stop();
});

describe('the request the middleware receives', () => {
  it('is a signed POST of the compliance.check envelope with the Standard Webhooks headers', async () => {
    const url = mw.route(json(200, { allow: true }));
    const outcome = await shared.check(settings(url), REQUEST);
    expect(outcome).toEqual({ kind: 'allowed', detail: 'approved', reason: null, latencyMs: expect.any(Number) });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(0);

    const [a, ...more] = mw.at(url);
    expect(more).toEqual([]);
    expect(a!.method).toBe('POST');
    expect(a!.signatureValid).toBe(true);
    expect(a!.headers['content-type']).toBe('application/json');
    expect(a!.headers['webhook-timestamp']).toBe(NOW_SECONDS);
    expect(a!.headers['webhook-id']).toMatch(/^chk_[0-9a-f-]{36}$/);
    expect(a!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(a!.headers['x-signature-sha256']).toBeUndefined();
    expect(Object.keys(a!.json as object)).toEqual(['type', 'timestamp', 'data']);
    expect(a!.json).toEqual({
      type: 'compliance.check',
      timestamp: '2025-03-04T05:06:07.891Z',
      data: {
        leadId: 'lead_1',
        externalLeadId: 'crm-42',
        channel: 'sms',
        address: '+15551234567',
        text: 'Hi Ann, still interested in the 3-bed on Elm St?',
        messageId: 'msg_1',
        purpose: 'conversation',
      },
    });

    // The test's verifier is not vacuous: another key, an altered body or timestamp all fail.
    expect(verify(Buffer.alloc(32, 1), a!.headers, a!.raw)).toBe(false);
    expect(verify(KEY, a!.headers, Buffer.concat([a!.raw, Buffer.from(' ')]))).toBe(false);
    expect(verify(KEY, { ...a!.headers, 'webhook-timestamp': String(Number(NOW_SECONDS) + 1) }, a!.raw)).toBe(false);
  });

  it('uses a new webhook-id for every request, even for the same message', async () => {
    const url = mw.route(json(200, { allow: true }));
    await shared.check(settings(url), REQUEST);
    await shared.check(settings(url), REQUEST);
    const ids = mw.at(url).map((a) => a.headers['webhook-id']);
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('sends a null externalLeadId and an email address as given', async () => {
    const url = mw.route(json(200, { allow: true }));
    const req = {
      ...REQUEST,
      externalLeadId: null,
      channel: 'email' as const,
      address: 'ann@example.com',
      purpose: 'compliance',
    };
    expect((await shared.check(settings(url), req)).detail).toBe('approved');
    expect((mw.at(url)[0]!.json as { data: unknown }).data).toEqual({
      leadId: 'lead_1',
      externalLeadId: null,
      channel: 'email',
      address: 'ann@example.com',
      text: REQUEST.text,
      messageId: 'msg_1',
      purpose: 'compliance',
    });
  });

  it('keys a plain (non-whsec_) secret by its UTF-8 bytes, unchanged', async () => {
    const plain = 'correct horse battery staple! ÿ';
    const url = mw.route(json(200, { allow: true }), Buffer.from(plain, 'utf8'));
    expect(await shared.check(settings(url, { secret: plain }), REQUEST)).toEqual({
      kind: 'allowed',
      detail: 'approved',
      reason: null,
      latencyMs: expect.any(Number),
    });
    expect(mw.at(url)[0]!.signatureValid).toBe(true);
  });

  it('keys a whsec_ secret whose rest is not base64 by the whole string, not a lossy decode', async () => {
    const odd = 'whsec_not base64 at all!';
    const url = mw.route(json(200, { allow: true }), Buffer.from(odd, 'utf8'));
    expect((await shared.check(settings(url, { secret: odd }), REQUEST)).detail).toBe('approved');
    expect(mw.at(url)[0]!.signatureValid).toBe(true);
  });

  it('a receiver with a different key refuses it (and that is a failure, not an approval)', async () => {
    const url = mw.route(json(200, { allow: true }), Buffer.alloc(32, 7));
    expect(await shared.check(settings(url), REQUEST)).toEqual(
      failedClosed('external compliance check failed: HTTP 401'),
    );
    expect(mw.at(url)[0]!.signatureValid).toBe(false);
  });

  it('signs exactly the bytes sent, whatever the text (unicode, quotes, newlines)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.string({ unit: 'binary', maxLength: 60 }),
        async (text, address) => {
          const url = mw.route(json(200, { allow: true }));
          // A generous timeout: this property is about the bytes signed, not about speed (a loaded machine must not fail it).
          const outcome = await shared.check(settings(url, { timeoutMs: 15_000 }), { ...REQUEST, text, address });
          const [a] = mw.at(url);
          expect(outcome.detail, outcome.reason ?? '').toBe('approved');
          expect(a!.signatureValid).toBe(true);
          expect((a!.json as { data: { text: string; address: string } }).data.text).toBe(text);
          expect((a!.json as { data: { text: string; address: string } }).data.address).toBe(address);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('the middleware decides', () => {
  it('allow: {"allow": true}, with a reason kept when given', async () => {
    const url = mw.route(json(200, { allow: true, reason: 'ok under policy 7' }));
    expect(await shared.check(settings(url), REQUEST)).toEqual({
      kind: 'allowed',
      detail: 'approved',
      reason: 'ok under policy 7',
      latencyMs: expect.any(Number),
    });
  });

  it('block with a reason: {"allow": false, "reason": ...}', async () => {
    const url = mw.route(json(200, { allow: false, reason: 'lead is under litigation hold' }));
    expect(await shared.check(settings(url), REQUEST)).toEqual({
      kind: 'blocked',
      detail: 'rejected',
      reason: 'lead is under litigation hold',
      latencyMs: expect.any(Number),
    });
  });

  it('a block is a block in open mode too (open only concerns failures)', async () => {
    const url = mw.route(json(200, { allow: false, reason: 'no' }));
    expect(await shared.check(settings(url, { failureMode: 'open' }), REQUEST)).toEqual({
      kind: 'blocked',
      detail: 'rejected',
      reason: 'no',
      latencyMs: expect.any(Number),
    });
  });

  it('block without a reason gets a default one', async () => {
    const url = mw.route(json(201, { allow: false }));
    expect(await shared.check(settings(url), REQUEST)).toEqual({
      kind: 'blocked',
      detail: 'rejected',
      reason: 'rejected by the external compliance check',
      latencyMs: expect.any(Number),
    });
  });

  it('the {"decision": "block" | "allow"} form', async () => {
    const block = mw.route(json(200, { decision: 'block', reason: 'quiet period' }));
    const allow = mw.route(json(200, { decision: 'allow' }));
    expect(await shared.check(settings(block), REQUEST)).toEqual({
      kind: 'blocked',
      detail: 'rejected',
      reason: 'quiet period',
      latencyMs: expect.any(Number),
    });
    expect(await shared.check(settings(allow, { failureMode: 'open' }), REQUEST)).toEqual({
      kind: 'allowed',
      detail: 'approved',
      reason: null,
      latencyMs: expect.any(Number),
    });
  });

  it('"allow" and "decision" that disagree are a failure', async () => {
    const url = mw.route(json(200, { allow: true, decision: 'block' }));
    expect(await shared.check(settings(url), REQUEST)).toEqual(
      failedClosed('external compliance check failed: response has an "allow" and a "decision" that disagree'),
    );
  });

  it('a reason is kept to its first 500 characters', async () => {
    const long = mw.route(json(200, { allow: false, reason: `${'r'.repeat(500)}TAIL` }));
    const exact = mw.route(json(200, { allow: false, reason: 'e'.repeat(500) }));
    // A surrogate pair straddling the cut is dropped whole, never halved.
    const astral = mw.route(json(200, { allow: true, reason: `${'a'.repeat(499)}😀bc` }));
    expect(await shared.check(settings(long), REQUEST)).toEqual({
      kind: 'blocked',
      detail: 'rejected',
      reason: 'r'.repeat(500),
      latencyMs: expect.any(Number),
    });
    expect(await shared.check(settings(exact), REQUEST)).toEqual({
      kind: 'blocked',
      detail: 'rejected',
      reason: 'e'.repeat(500),
      latencyMs: expect.any(Number),
    });
    expect(await shared.check(settings(astral), REQUEST)).toEqual({
      kind: 'allowed',
      detail: 'approved',
      reason: 'a'.repeat(499),
      latencyMs: expect.any(Number),
    });
  });
});

describe('a failing check follows failureMode', () => {
  const both = async (url: string, reason: string, timeoutMs = 2000) => {
    expect(await shared.check(settings(url, { timeoutMs, failureMode: 'closed' }), REQUEST)).toEqual(
      failedClosed(reason),
    );
    expect(await shared.check(settings(url, { timeoutMs, failureMode: 'open' }), REQUEST)).toEqual(failedOpen(reason));
  };

  it('HTTP 500', async () => {
    const url = mw.route(json(500, { allow: true }));
    await both(url, 'external compliance check failed: HTTP 500');
    expect(mw.at(url)).toHaveLength(2);
  });

  it('invalid JSON', async () => {
    await both(mw.route(json(200, '{"allow": tru')), 'external compliance check failed: response is not valid JSON');
  });

  it('JSON without a usable "allow" (missing, a string, a bad decision, not an object)', async () => {
    const reason =
      'external compliance check failed: response has neither a boolean "allow" nor a "decision" of "allow" or "block"';
    await both(mw.route(json(200, { ok: true })), reason);
    await both(mw.route(json(200, { allow: 'true' })), reason);
    await both(mw.route(json(200, { decision: 'maybe' })), reason);
    await both(
      mw.route(json(200, '[{"allow":true}]')),
      'external compliance check failed: response is not a JSON object',
    );
    await both(mw.route(json(200, '')), 'external compliance check failed: response is not valid JSON');
  });

  it('timeout: the middleware never answers (timeoutMs 300)', async () => {
    const url = mw.route(hang);
    const closed = await shared.check(settings(url, { timeoutMs: 300 }), REQUEST);
    const open = await shared.check(settings(url, { timeoutMs: 300, failureMode: 'open' }), REQUEST);
    expect(closed).toEqual(failedClosed('external compliance check failed: timeout after 300 ms'));
    expect(open).toEqual(failedOpen('external compliance check failed: timeout after 300 ms'));
    for (const o of [closed, open]) {
      expect(o.latencyMs).toBeGreaterThanOrEqual(290);
      expect(o.latencyMs).toBeLessThan(1500);
    }
    expect(mw.at(url)).toHaveLength(2);
  });

  it('timeout: headers arrive but the body never finishes', async () => {
    const url = mw.route((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"allow": ');
    });
    const outcome = await shared.check(settings(url, { timeoutMs: 300 }), REQUEST);
    expect(outcome).toEqual(failedClosed('external compliance check failed: timeout after 300 ms'));
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(290);
    expect(outcome.latencyMs).toBeLessThan(1500);
  });

  it('connection refused (nothing listens on the port)', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/check`;
    await both(url, `external compliance check failed: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('a 302 is not followed', async () => {
    const target = mw.route(json(200, { allow: true }));
    const url = mw.route((_req, res) => void res.writeHead(302, { location: target }).end());
    await both(url, 'external compliance check failed: HTTP 302 (redirects are not followed)');
    expect(mw.at(url)).toHaveLength(2);
    expect(mw.at(target)).toEqual([]);
  });

  it('a response body over 16 KB', async () => {
    await both(
      mw.route(json(200, { allow: true, pad: 'x'.repeat(17 * 1024) })),
      'external compliance check failed: response body is larger than 16384 bytes',
    );
  });

  it('an invalid URL', async () => {
    await both('not a url', 'external compliance check failed: url refused: url is not a valid absolute URL');
  });
});

describe('URL rules (SSRF) when private URLs are not allowed', () => {
  it('http://127.0.0.1 is refused before any request is made (https only)', async () => {
    const strict = client(false);
    const url = mw.route(json(200, { allow: true }));
    const connections = mw.connections;
    const arrivals = mw.arrivals.length;
    expect(await strict.check(settings(url), REQUEST)).toEqual(
      failedClosed(
        'external compliance check failed: url refused: url must use https (http is allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      ),
    );
    expect(await strict.check(settings(url, { failureMode: 'open' }), REQUEST)).toEqual(
      failedOpen(
        'external compliance check failed: url refused: url must use https (http is allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      ),
    );
    expect(mw.arrivals.length).toBe(arrivals);
    expect(mw.connections).toBe(connections);
  });

  it('https to a loopback address is refused without connecting', async () => {
    const strict = client(false);
    const url = mw.route(json(200, { allow: true })).replace('http://', 'https://');
    const connections = mw.connections;
    expect(await strict.check(settings(url), REQUEST)).toEqual(
      failedClosed(
        'external compliance check failed: url refused: url must not point to a private, loopback or link-local address (allowed only with PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS=true)',
      ),
    );
    expect(mw.connections).toBe(connections);
  });
});

describe('the client', () => {
  it('keeps connections alive: sequential checks share one connection', async () => {
    const own = client();
    const url = mw.route(json(200, { allow: true }));
    const before = mw.connections;
    for (let i = 0; i < 3; i += 1) {
      expect((await own.check(settings(url), REQUEST)).detail).toBe('approved');
      // undici hands the socket back to the pool just after the body ends; a send is never issued in that same tick.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(mw.at(url)).toHaveLength(3);
    expect(mw.connections - before).toBe(1);
  });

  it('never throws, even once closed: a closed client fails by failureMode', async () => {
    const own = client();
    const url = mw.route(json(200, { allow: true }));
    await own.close();
    const outcome = await own.check(settings(url), REQUEST);
    expect(outcome.kind).toBe('blocked');
    expect(outcome.detail).toBe('failed_closed');
    expect(outcome.reason).toMatch(/^external compliance check failed: \S/);
    expect(mw.at(url)).toEqual([]);
  });
});
