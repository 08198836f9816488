import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { LINGER_BYTES, LINGER_MS } from '../../src/platform/http/linger.js';
import { createLead, describeEachDialect, type TestServer } from '../support/harness.js';

/**
 * A body over the limit is answered 413 before it is read. Closing the socket
 * then, with the rest of the upload still arriving, makes the kernel send a
 * reset instead of the answer (data unread at close), and the client sees
 * ECONNRESET or EPIPE, never the 413. The server reads and discards a bounded
 * amount after answering, so a client that sends its whole body, as every
 * client library does, reads the 413 and a clean close.
 */

const FIVE_MB = 5 * 1024 * 1024;

interface Outcome {
  status: number | undefined;
  body: string;
  error: string | undefined;
  /** Whether the whole body went out before the connection closed. */
  sentAll: boolean;
}

/** One upload over a bare socket: the headers, then the whole body as fast as the socket takes it, reading all the while. */
function upload(ts: TestServer, path: string, headers: string[], size: number, timeoutMs = 20_000): Promise<Outcome> {
  const port = Number(new URL(ts.url).port);
  return new Promise((resolve) => {
    // Half-open allowed: the server's FIN after its answer does not stop this client sending, as it does not stop curl or undici mid-body.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let text = '';
    let error: string | undefined;
    let sentAll = false;
    const timer = setTimeout(() => {
      error = 'timeout';
      socket.destroy();
    }, timeoutMs);
    /** The answer is whole once its head and Content-Length bytes of body are in. */
    const answered = () => {
      const head = text.indexOf('\r\n\r\n');
      const length = head < 0 ? undefined : /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, head))?.[1];
      return length !== undefined && text.length >= head + 4 + Number(length);
    };
    // Done when the body is sent and the answer read (a kept-alive connection stays open), or when the server closes.
    const settleIfDone = () => {
      if (sentAll && answered()) socket.destroy();
    };
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      settleIfDone();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({
        status: status ? Number(status) : undefined,
        body: text.slice(text.indexOf('\r\n\r\n') + 4),
        error,
        sentAll,
      });
    });
    socket.on('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers.join('\r\n')}\r\ncontent-length: ${size}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < size) {
          const n = Math.min(chunk.length, size - sent);
          sent += n;
          const last = sent === size;
          const more = socket.write(
            n === chunk.length ? chunk : chunk.subarray(0, n),
            last
              ? () => {
                  sentAll = true;
                  settleIfDone();
                }
              : undefined,
          );
          if (!more && !last) return void socket.once('drain', pump);
        }
      };
      pump();
    });
  });
}

describeEachDialect('a body over the limit gets its 413, not a reset connection', (ctx) => {
  it('six concurrent 5 MB uploads to a JSON route each read 413 {message}, none ECONNRESET or EPIPE', async () => {
    const ts = ctx();
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () =>
        upload(ts, '/v1/leads/create', [`x-api-key: ${ts.acme.key}`, 'content-type: application/json'], FIVE_MB),
      ),
    );
    for (const o of outcomes) {
      expect({ status: o.status, error: o.error, sentAll: o.sentAll }).toEqual({
        status: 413,
        error: undefined,
        sentAll: true,
      });
      expect(JSON.parse(o.body)).toMatchObject({ message: 'Payload Too Large' });
    }
    // The server is still well: the next request is answered.
    expect((await ts.acme.get('/leads?limit=1')).status).toBe(200);
  }, 60_000);

  it('the reading after a 413 is bounded: an upload that goes on past LINGER_BYTES is cut off, and the server serves on', async () => {
    const ts = ctx();
    const started = Date.now();
    const endless = await upload(
      ts,
      '/v1/leads/create',
      [`x-api-key: ${ts.acme.key}`, 'content-type: application/json'],
      LINGER_BYTES * 4,
    );
    // The server hung up long before the client had sent its body, and well within the time bound.
    expect(endless.sentAll).toBe(false);
    expect(endless.error).not.toBe('timeout');
    expect(Date.now() - started).toBeLessThan(LINGER_MS + 3_000);
    expect((await ts.acme.get('/leads?limit=1')).status).toBe(200);
  }, 60_000);

  it('a 5 MB upload to unsubscribe, and one without a key, also read their answer', async () => {
    const ts = ctx();
    const leadId = await createLead(ts.acme);
    const [unsubscribe, keyless] = await Promise.all([
      upload(
        ts,
        `/v1/leads/${leadId}/unsubscribe`,
        [`x-api-key: ${ts.acme.key}`, 'content-type: application/json'],
        FIVE_MB,
      ),
      upload(ts, '/v1/leads/create', ['content-type: application/json'], FIVE_MB),
    ]);
    expect({ status: unsubscribe.status, error: unsubscribe.error }).toEqual({ status: 413, error: undefined });
    expect({ status: keyless.status, error: keyless.error }).toEqual({ status: 403, error: undefined });
    expect((await ts.acme.get(`/leads/${leadId}`)).body.subscriptions.sms).toBe('subscribed');
  }, 60_000);
});
