import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import * as repo from './idempotency.repository.js';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

/** How long a key answers with its first result. */
const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A 'running' row older than this belongs to a request whose process died
 * between claiming the key and recording the answer (crash, kill -9, OOM, the
 * database lost in onSend). No live request runs that long here: services are
 * short transactions and shutdown force-exits after 10 s. Without a takeover
 * such a key would answer 409 for 24 h although the work may never have been
 * done; taking it over may redo work that committed just before the crash,
 * which is no worse than a retry without a key and the only way to progress.
 */
const ABANDONED_AFTER_MS = 5 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 1000;
const CLAIM_ATTEMPTS = 3;

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** The request that inserted (or took over) a key's running row; `createdAt` identifies it. */
interface Claim {
  organizationId: string;
  key: string;
  createdAt: string;
  settled: boolean;
}

/** JSON with object keys sorted at every level: equal bodies hash equal whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const fields = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method}\n${path}\n${canonicalJson(body ?? {})}`)
    .digest('hex');
}

function replay(reply: FastifyReply, record: repo.IdempotencyRecord): FastifyReply {
  // Every /v1 answer is JSON, so the stored text goes out with the same content type, unserialised.
  return reply
    .code(record.responseStatus ?? 200)
    .header(REPLAYED_HEADER, 'true')
    .type('application/json; charset=utf-8')
    .send(record.responseBody ?? '');
}

/**
 * `Idempotency-Key` on authenticated POSTs under /v1: a retry with the same key
 * and request within 24 h gets the first answer (2xx or 4xx) replayed without
 * running the handler; the same key with another request is 422; a retry while
 * the first still runs is 409. Keys are scoped per organization. A 5xx frees
 * the key so the retry does the work.
 *
 * It runs as a preHandler, after parsing and validation: the hash covers the
 * parsed body, and a request that fails validation never claims a key (its
 * retry fails the same way without one).
 */
export function registerIdempotency(app: FastifyInstance, deps: Deps): void {
  const claims = new WeakMap<FastifyRequest, Claim>();
  let nextPurgeAt = 0;

  const purgeNowAndThen = (request: FastifyRequest, now: Date) => {
    if (now.getTime() < nextPurgeAt) return;
    nextPurgeAt = now.getTime() + PURGE_EVERY_MS;
    repo
      .purgeExpired(deps.db, now.toISOString())
      .catch((err: unknown) => request.log.warn({ err }, 'idempotency purge failed'));
  };

  const settle = async (request: FastifyRequest, claim: Claim, answer?: { status: number; body: string }) => {
    claim.settled = true;
    const { organizationId, key, createdAt } = claim;
    try {
      if (answer) await repo.complete(deps.db, organizationId, key, createdAt, answer.status, answer.body);
      else await repo.release(deps.db, organizationId, key, createdAt);
    } catch (err) {
      request.log.error({ err }, 'could not record the idempotent answer; releasing the key');
      // Left 'running', the key would answer 409 until taken over as abandoned.
      await repo.release(deps.db, organizationId, key, createdAt).catch(() => {});
    }
  };

  const preHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.auth) return;
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (key === undefined) return;
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) throw new DomainError('invalid_idempotency_key');

    const organizationId = request.auth.organizationId;
    // biome-ignore lint/style/noNonNullAssertion: split always answers at least one part
    const path = request.url.split('?')[0]!;
    const hash = requestHash(request.method, path, request.body);
    purgeNowAndThen(request, deps.clock.now());

    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const now = deps.clock.now();
      const createdAt = now.toISOString();
      const expiresAt = new Date(now.getTime() + KEY_TTL_MS).toISOString();
      if (
        await repo.insertRunning(deps.db, organizationId, {
          key,
          method: request.method,
          path,
          requestHash: hash,
          createdAt,
          expiresAt,
        })
      ) {
        claims.set(request, { organizationId, key, createdAt, settled: false });
        return;
      }
      const existing = await repo.findRecord(deps.db, organizationId, key);
      if (!existing) continue; // released or purged in between
      if (existing.expiresAt <= createdAt) {
        await repo.deleteIfExpired(deps.db, organizationId, key, createdAt);
        continue;
      }
      if (existing.requestHash !== hash) throw new DomainError('idempotency_key_reused');
      if (existing.status === 'done') return replay(reply, existing);
      if (Date.parse(existing.createdAt) + ABANDONED_AFTER_MS > now.getTime())
        throw new DomainError('idempotency_in_progress');
      if (await repo.takeOver(deps.db, organizationId, key, existing.createdAt, createdAt, expiresAt)) {
        claims.set(request, { organizationId, key, createdAt, settled: false });
        return;
      }
    }
    // Lost every race for the key: someone else holds it right now.
    throw new DomainError('idempotency_in_progress');
  };

  // Recorded before the answer leaves, so a client that has the answer never meets its own 'running' row.
  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = claims.get(request);
    if (!claim || claim.settled) return payload;
    const body =
      typeof payload === 'string'
        ? payload
        : Buffer.isBuffer(payload)
          ? payload.toString('utf8')
          : payload == null
            ? ''
            : undefined;
    // A 5xx (or a streamed body we cannot store) frees the key: the retry must do the work.
    await settle(
      request,
      claim,
      reply.statusCode < 500 && body !== undefined ? { status: reply.statusCode, body } : undefined,
    );
    return payload;
  };

  // A request that ended without passing onSend (a hijacked reply, a failure before the answer) frees the key.
  // A client that hung up is no such case: its answer still passes onSend and is kept for the retry.
  const onResponse = async (request: FastifyRequest) => {
    const claim = claims.get(request);
    if (claim && !claim.settled) await settle(request, claim);
  };

  // Only POST routes under /v1 carry these hooks: reads pay nothing for idempotency.
  const append = <T>(existing: T | T[] | undefined, hook: T): T[] => [
    ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]),
    hook,
  ];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST') || !route.url.startsWith('/v1')) return;
    route.preHandler = append(route.preHandler as never, preHandler as never);
    route.onSend = append(route.onSend as never, onSend as never);
    route.onResponse = append(route.onResponse as never, onResponse as never);
  });
}
