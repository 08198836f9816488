import { Agent, request } from 'undici';
import { refusalAtDelivery, safeLookup } from './url-safety.js';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  /** Seconds the receiver asked us to wait (Retry-After on 429/503). */
  retryAfterSeconds: number | null;
  gone: boolean;
  /**
   * Not sent: this process's URL policy forbids the target. Final, not retried:
   * the same process would refuse it again on every attempt.
   */
  refused?: true;
}

function retryAfter(value: string | string[] | undefined): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

const refused = (reason: string): SendResult => ({
  ok: false,
  statusCode: null,
  error: `refused by this worker's URL policy: ${reason}`.slice(0, 500),
  retryAfterSeconds: null,
  gone: false,
  refused: true,
});

/**
 * One keep-alive connection pool for all deliveries. Redirects are never
 * followed (a 3xx is a failure); the DNS answer is checked at connect time, so
 * a hostname cannot be re-pointed at a private address after registration.
 */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(
    private readonly timeoutMs: number,
    private readonly allowPrivate: boolean,
  ) {
    this.agent = new Agent({
      connect: { lookup: safeLookup(allowPrivate) as never, timeout: Math.min(timeoutMs, 10_000) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connections: 128,
    });
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    // The URL was checked when it was saved, perhaps by a process with another setting: checked again here.
    const refusal = refusalAtDelivery(url, this.allowPrivate);
    if (refusal) return refused(refusal);
    try {
      const res = await request(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'user-agent': 'Parley-Webhooks/1.0', ...headers },
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // The receiver's body is not needed; discard it without buffering (a huge body cannot exhaust memory).
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const wait = res.statusCode === 429 || res.statusCode === 503 ? retryAfter(res.headers['retry-after']) : null;
      return {
        ok,
        statusCode: res.statusCode,
        error: ok ? null : `HTTP ${res.statusCode}`,
        retryAfterSeconds: wait,
        gone: res.statusCode === 410,
      };
    } catch (err) {
      const e = err as Error & { code?: string; cause?: { code?: string; message?: string } };
      // The host name resolved only to private addresses at connect time (safeLookup).
      if (e.code === 'EADDRNOTPUBLIC') return refused(e.message);
      if (e.cause?.code === 'EADDRNOTPUBLIC')
        return refused(e.cause.message ?? 'host resolves only to non-public addresses');
      const error =
        e.name === 'TimeoutError' || e.name === 'AbortError'
          ? `timeout after ${this.timeoutMs} ms`
          : `${e.code ?? e.name}: ${e.message}`;
      return { ok: false, statusCode: null, error: error.slice(0, 500), retryAfterSeconds: null, gone: false };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
