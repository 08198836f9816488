import { connect } from 'node:net';
import { Agent, request } from 'undici';

/** One request exactly as it goes on the wire: raw path (already percent-encoded), raw header list, raw body. */
export interface WireRequest {
  method: string;
  /** Starts with `/`, e.g. `/v1/leads/abc?limit=2`. */
  path: string;
  /** Flat name/value list, so a header may repeat. */
  headers: string[];
  body?: string | Buffer;
}

export interface WireResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  ms: number;
}

/**
 * A client that never follows redirects, never retries, and gives up on a
 * request after `timeoutMs` (a hang is a failure, not a wait).
 */
export function wireClient(baseUrl: string, timeoutMs = 5000) {
  const agent = new Agent({ headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connections: 16, pipelining: 0 });
  return {
    async send(req: WireRequest): Promise<WireResponse> {
      const started = performance.now();
      const res = await request(`${baseUrl}${req.path}`, {
        method: req.method as 'GET',
        headers: req.headers,
        body: req.body,
        dispatcher: agent,
      });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text, ms: performance.now() - started };
    },
    close: () => agent.close(),
  };
}

/**
 * Bytes that no HTTP client library would send (mismatched lengths, broken
 * chunking, header floods), over a bare socket. Answers the final status
 * line's code and that answer, or `closed` when the server hung up without
 * answering; fails after `timeoutMs`.
 */
export function rawExchange(
  port: number,
  bytes: string | Buffer,
  timeoutMs = 5000,
  /** Close our side after sending, as a client that gives up does (the server then need not wait for a body it was promised). */
  halfClose = false,
): Promise<{ status: number | 'closed'; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${JSON.stringify(String(bytes).slice(0, 120))}`));
    }, timeoutMs);
    // Interim answers (100 Continue) come before the real one.
    const final = () => text.replace(/^(HTTP\/1\.[01] 1\d\d[^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
    const finish = () => {
      clearTimeout(timer);
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(final());
      resolve({ status: m ? Number(m[1]) : 'closed', text: final() });
      socket.destroy();
    };
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      // One answer is enough: stop as soon as its body is complete.
      const answer = final();
      const head = answer.indexOf('\r\n\r\n');
      if (head < 0 || /^HTTP\/1\.[01] 1\d\d/.test(answer)) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(answer.slice(0, head))?.[1];
      if (length !== undefined && answer.length >= head + 4 + Number(length)) finish();
    });
    socket.on('end', finish);
    socket.on('error', finish);
    socket.on('connect', () => (halfClose ? socket.end(bytes) : socket.write(bytes)));
  });
}
