/**
 * External Compliance Check: the organization's own middleware approves each
 * automated send before it goes out.
 *
 * Protocol
 * --------
 * Before each automated send Parley makes one request:
 *
 *   POST <url>
 *   Content-Type: application/json
 *   User-Agent: Parley-ComplianceCheck/1.0
 *   webhook-id: <unique id of this request>
 *   webhook-timestamp: <Unix seconds>
 *   webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">
 *
 *   {"type":"compliance.check","timestamp":"<ISO 8601>","data":{
 *     "leadId":"...","externalLeadId":"..." | null,"channel":"sms" | "voice" | "email",
 *     "address":"<phone in E.164 or email address>","text":"<message text>",
 *     "messageId":"...","purpose":"..."}}
 *
 * The headers are the Standard Webhooks ones, made exactly as webhook
 * deliveries are (webhooks/signing.ts), so the same libraries verify them.
 * `webhook-id` is new for every request (a check asked again for the same
 * message is a new request), so a receiver may refuse a repeated id as a replay.
 * The signing key is derived from the configured secret:
 *   - `whsec_<base64>` (the form webhook secrets have): the key is the
 *     base64-decoded part after `whsec_`, as in Standard Webhooks
 *     (`new Webhook(secret)` in the JS/Python libraries);
 *   - any other string (including a `whsec_` one whose rest is not valid
 *     base64): the key is the secret's own UTF-8 bytes, unchanged
 *     (`new Webhook(secret, { format: 'raw' })` in JS, bytes in Python).
 *   A plain secret is never base64-decoded, since a lenient decode of
 *   arbitrary text would silently drop characters and weaken the key.
 * The hosted service's legacy `X-Signature-SHA256` header is not sent.
 *
 * The receiver answers with a 2xx status and a JSON object:
 *   {"allow": true}                       the send goes out
 *   {"allow": false, "reason": "..."}     the send is blocked with that reason
 * or, equivalently, {"decision": "allow" | "block", "reason": "..."}.
 * `allow` must be a JSON boolean; `reason` (optional, a string) is kept to
 * its first 500 characters. If both `allow` and `decision` are given they must agree.
 *
 * Anything else is a failure of the check: a non-2xx status, a redirect
 * (3xx; never followed), a body that is not a JSON object with `allow` or
 * `decision`, a body over 16 KB, no complete answer within `timeoutMs` (the
 * whole exchange, connecting included), a connection error (except the one
 * retry below), or a URL refused
 * by the webhook URL rules (https only and public addresses only, unless the
 * operator allows private URLs; checked on every request, and again at
 * connect time for what a hostname resolves to). A failure is decided by the
 * setting `failureMode`: `closed` (default) blocks the send, `open` lets it
 * go; either way the reason names the failure, e.g.
 * `external compliance check failed: timeout after 2000 ms`.
 *
 * One retry: a request written on a reused keep-alive connection that the
 * receiver closes or resets before sending any byte of an answer (it closed
 * the connection as idle just as the request went out) is sent once more,
 * as a new request with a new `webhook-id`, on a new connection, within the
 * same `timeoutMs`. Nothing else is retried: not a fresh connection's
 * failure, not a failure after an answer started.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { signDelivery } from '../webhooks/signing.js';
import { checkWebhookUrl, safeLookup, UnsafeUrl } from '../webhooks/url-safety.js';
import { unlessResetOnReuse } from './reused-socket.js';

export interface ExternalCheckSettings {
  url: string;
  secret: string;
  timeoutMs: number;
  failureMode: 'closed' | 'open';
}

export interface ExternalCheckRequest {
  organizationId: string;
  leadId: string;
  externalLeadId: string | null;
  channel: 'sms' | 'voice' | 'email';
  address: string;
  text: string;
  messageId: string;
  purpose: string;
}

export type ExternalCheckOutcome =
  | { kind: 'allowed'; detail: 'approved' | 'failed_open'; reason: string | null; latencyMs: number }
  | { kind: 'blocked'; detail: 'rejected' | 'failed_closed'; reason: string; latencyMs: number };

/** Longest reason kept, from the receiver or for a failure. */
export const MAX_REASON_LENGTH = 500;
/** Largest response body read; a longer one is a failure. */
export const MAX_RESPONSE_BYTES = 16 * 1024;
/** Used when the stored timeout is not a positive number (settings default to 3000). */
const DEFAULT_TIMEOUT_MS = 3000;
const FAILURE_PREFIX = 'external compliance check failed: ';
const DEFAULT_BLOCK_REASON = 'rejected by the external compliance check';

/** A failure of the check itself (not a decision of the receiver). */
class CheckFailed extends Error {}

/** Cut to `max` UTF-16 units without leaving half of a surrogate pair at the end. */
function truncate(text: string, max = MAX_REASON_LENGTH): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The HMAC key for a secret (see the protocol above): the decoded bytes of a
 * `whsec_<base64>` secret, the UTF-8 bytes of anything else.
 */
export function signingKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) {
    const encoded = secret.slice('whsec_'.length);
    if (encoded.length > 0 && STRICT_BASE64.test(encoded)) return Buffer.from(encoded, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

/** Standard Webhooks headers for one request, made by the webhooks' own signer. */
function signRequest(secret: string, id: string, unixSeconds: number, body: string): Record<string, string> {
  // signDelivery keys its Standard Webhooks HMAC by the base64 after `whsec_`: hand it the key in that form.
  const signed = signDelivery(`whsec_${signingKey(secret).toString('base64')}`, id, unixSeconds, body);
  return {
    'webhook-id': signed['webhook-id'],
    'webhook-timestamp': signed['webhook-timestamp'],
    'webhook-signature': signed['webhook-signature'],
  };
}

type Verdict = { allow: boolean; reason: string | null };

/** Reads the receiver's decision from a 2xx body, or throws CheckFailed. */
function parseVerdict(raw: string): Verdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new CheckFailed('response is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new CheckFailed('response is not a JSON object');
  const body = parsed as Record<string, unknown>;
  const byAllow = typeof body.allow === 'boolean' ? body.allow : undefined;
  const byDecision = body.decision === 'allow' ? true : body.decision === 'block' ? false : undefined;
  const allow = byAllow ?? byDecision;
  if (allow === undefined) {
    throw new CheckFailed('response has neither a boolean "allow" nor a "decision" of "allow" or "block"');
  }
  if (byAllow !== undefined && byDecision !== undefined && byAllow !== byDecision) {
    throw new CheckFailed('response has an "allow" and a "decision" that disagree');
  }
  const reason = typeof body.reason === 'string' && body.reason.trim() !== '' ? truncate(body.reason) : null;
  return { allow, reason };
}

function describeError(err: unknown): string {
  if (err instanceof CheckFailed) return err.message;
  if (err instanceof UnsafeUrl) return `url refused: ${err.message}`;
  const e = err as (Error & { code?: string; errors?: unknown[] }) | undefined;
  if (!e || typeof e !== 'object') return String(err);
  // A connection tried on several addresses fails with an AggregateError whose own message may be empty.
  const message = e.message || (Array.isArray(e.errors) && (e.errors[0] as Error | undefined)?.message) || '';
  const label = e.code ?? e.name ?? 'Error';
  return message ? `${label}: ${message}` : label;
}

/**
 * Asks an organization's External Compliance Check about one send. One client
 * (one undici Agent, so keep-alive connections) serves every organization;
 * `check` never throws: every failure becomes an outcome by `failureMode`.
 */
export class ExternalCheckClient {
  private readonly agent: Agent;
  private readonly allowPrivateUrls: boolean;
  private readonly now: () => Date;

  constructor(opts: { allowPrivateUrls: boolean; now?: () => Date }) {
    this.allowPrivateUrls = opts.allowPrivateUrls;
    this.now = opts.now ?? (() => new Date());
    this.agent = new Agent({
      // What a hostname resolves to is checked again at connect time (SSRF), as for webhook deliveries.
      connect: { lookup: safeLookup(opts.allowPrivateUrls) as never },
      connections: 64,
    });
  }

  async check(settings: ExternalCheckSettings, req: ExternalCheckRequest): Promise<ExternalCheckOutcome> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const timeoutMs =
      Number.isFinite(settings.timeoutMs) && settings.timeoutMs > 0 ? settings.timeoutMs : DEFAULT_TIMEOUT_MS;
    try {
      const verdict = await this.ask(settings, req, timeoutMs);
      if (verdict.allow) return { kind: 'allowed', detail: 'approved', reason: verdict.reason, latencyMs: latency() };
      return {
        kind: 'blocked',
        detail: 'rejected',
        reason: verdict.reason ?? DEFAULT_BLOCK_REASON,
        latencyMs: latency(),
      };
    } catch (err) {
      let what: string;
      try {
        what = describeError(err);
      } catch {
        what = 'unexpected error';
      }
      const reason = truncate(`${FAILURE_PREFIX}${what}`);
      return settings.failureMode === 'open'
        ? { kind: 'allowed', detail: 'failed_open', reason, latencyMs: latency() }
        : { kind: 'blocked', detail: 'failed_closed', reason, latencyMs: latency() };
    }
  }

  /** One exchange under one deadline (URL check, connect, headers and body); throws on any failure. */
  private async ask(settings: ExternalCheckSettings, req: ExternalCheckRequest, timeoutMs: number): Promise<Verdict> {
    const deadline = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort(new CheckFailed(`timeout after ${timeoutMs} ms`));
    }, timeoutMs);
    const expired = new Promise<never>((_, reject) => {
      deadline.signal.addEventListener('abort', () => reject(deadline.signal.reason), { once: true });
    });
    expired.catch(() => {});
    try {
      return await Promise.race([this.exchange(settings, req, timeoutMs, deadline.signal), expired]);
    } catch (err) {
      if (timedOut) throw new CheckFailed(`timeout after ${timeoutMs} ms`);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private async exchange(
    settings: ExternalCheckSettings,
    req: ExternalCheckRequest,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<Verdict> {
    const url = await checkWebhookUrl(settings.url, this.allowPrivateUrls);
    signal.throwIfAborted();
    const now = this.now();
    const body = JSON.stringify({
      type: 'compliance.check',
      timestamp: now.toISOString(),
      data: {
        leadId: req.leadId,
        externalLeadId: req.externalLeadId,
        channel: req.channel,
        address: req.address,
        text: req.text,
        messageId: req.messageId,
        purpose: req.purpose,
      },
    });
    const send = (id: string) =>
      request(url, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': 'Parley-ComplianceCheck/1.0',
          ...signRequest(settings.secret, id, Math.floor(now.getTime() / 1000), body),
        },
        dispatcher: this.agent,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    // A keep-alive connection the middleware closed as idle just as this request was written on it fails
    // before any answer: sent once more (a new request, with its own id) on a new connection, within the
    // same deadline. Never after an answer started, and never twice.
    const first = `chk_${randomUUID()}`;
    const once = await unlessResetOnReuse(first, () => send(first));
    const res = once.retry ? await send(`chk_${randomUUID()}`) : once.value;
    if (res.statusCode < 200 || res.statusCode >= 300) {
      // Drain a small body so the connection stays reusable; a large one just closes it.
      await res.body.dump({ limit: MAX_RESPONSE_BYTES }).catch(() => {});
      const redirect = res.statusCode >= 300 && res.statusCode < 400 ? ' (redirects are not followed)' : '';
      throw new CheckFailed(`HTTP ${res.statusCode}${redirect}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > MAX_RESPONSE_BYTES) {
        res.body.destroy();
        throw new CheckFailed(`response body is larger than ${MAX_RESPONSE_BYTES} bytes`);
      }
      chunks.push(buf);
    }
    return parseVerdict(Buffer.concat(chunks).toString('utf8'));
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
