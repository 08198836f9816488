import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './assert.js';

export interface Received {
  id: string;
  timestamp: string;
  body: string;
  json: { event: string; timestamp: string; data: Record<string, unknown> };
  headers: IncomingMessage['headers'];
  /** Both signatures checked against the secret the test registered. */
  standardSignatureValid: boolean;
  legacySignatureValid: boolean;
  /** Date.now() when the request body had arrived. */
  at: number;
  /** The sender's TCP port: tells apart the connections (and so the processes) deliveries came over. */
  remotePort: number;
}

export type Behaviour = (req: IncomingMessage, res: ServerResponse, attempt: number) => void;

export const respond =
  (status: number, headers: Record<string, string> = {}): Behaviour =>
  (_req, res) => {
    res.writeHead(status, headers).end('{}');
  };

/** Never answers: the sender has to give up on its own (its timeout). */
export const hang: Behaviour = () => {};

/** Answers after `ms`. */
export const respondAfter =
  (ms: number, status = 200): Behaviour =>
  (_req, res) => {
    setTimeout(() => {
      if (!res.destroyed) res.writeHead(status).end('{}');
    }, ms);
  };

/** 200 with a body of `megabytes` MB, streamed (with backpressure) until done or the sender hangs up. */
export const hugeBody =
  (megabytes: number): Behaviour =>
  (_req, res) => {
    const chunk = Buffer.alloc(1024 * 1024, 120);
    let sent = 0;
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const pump = () => {
      while (sent < megabytes && !res.destroyed) {
        sent += 1;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
  };

/** 200, then one byte every `everyMs`, never finishing: only the sender's own deadline ends it. */
export const trickle =
  (everyMs: number): Behaviour =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('.')), everyMs);
    res.on('close', () => clearInterval(t));
  };

/** Verifies as a Standard Webhooks consumer would: HMAC over id.timestamp.body keyed by the base64 part of the secret. */
export function verifyStandard(secret: string, id: string, timestamp: string, body: string, header: string): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return header.split(' ').some((part) => part === `v1,${expected}`);
}

export function verifyLegacy(secret: string, body: string, header: string): boolean {
  return createHmac('sha256', secret).update(body).digest('hex') === header;
}

/** A real HTTP receiver on 127.0.0.1 that records every delivery (successful or not) and answers as told. */
export class Receiver {
  readonly received: Received[] = [];
  readonly acknowledged: Received[] = [];
  /** Webhook ids seen while another request with the same id was still unanswered (should stay empty). */
  readonly overlapping: string[] = [];
  secret = '';
  behaviour: Behaviour = respond(200);
  private server: Server | undefined;
  private attempts = 0;
  private readonly open = new Map<string, number>();
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const id = String(req.headers['webhook-id'] ?? '');
        const timestamp = String(req.headers['webhook-timestamp'] ?? '');
        const r: Received = {
          id,
          timestamp,
          body,
          json: JSON.parse(body),
          headers: req.headers,
          standardSignatureValid: verifyStandard(
            this.secret,
            id,
            timestamp,
            body,
            String(req.headers['webhook-signature'] ?? ''),
          ),
          legacySignatureValid: verifyLegacy(this.secret, body, String(req.headers['x-signature-sha256'] ?? '')),
          at: Date.now(),
          remotePort: req.socket.remotePort ?? 0,
        };
        this.received.push(r);
        if ((this.open.get(id) ?? 0) > 0) this.overlapping.push(id);
        this.open.set(id, (this.open.get(id) ?? 0) + 1);
        res.once('close', () => this.open.set(id, this.open.get(id)! - 1));
        this.attempts += 1;
        const origEnd = res.end.bind(res);
        res.end = ((...args: Parameters<ServerResponse['end']>) => {
          if (res.statusCode >= 200 && res.statusCode < 300) this.acknowledged.push(r);
          return origEnd(...args);
        }) as ServerResponse['end'];
        this.behaviour(req, res, this.attempts);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** Acknowledged (2xx) deliveries per webhook id. */
  ackCounts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const r of this.acknowledged) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
    return counts;
  }

  /** Everything received for one webhook id, in arrival order. */
  attemptsFor(id: string): Received[] {
    return this.received.filter((r) => r.id === id);
  }

  /** Waits until `predicate` holds, polling; fails after `ms`. */
  async until(predicate: () => boolean, ms = 10_000): Promise<void> {
    await until(predicate, Boolean, ms, {
      what: () => `receiver (received ${this.received.length}, acknowledged ${this.acknowledged.length})`,
      every: 20,
    });
  }
}
