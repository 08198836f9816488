import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { DomainError } from '../errors.js';

/** Deeper than any real body needs (additionalInfo included), shallow enough for every recursive walk downstream. */
export const MAX_JSON_DEPTH = 64;

/** Whether arrays and objects in JSON text nest deeper than `limit` (brackets inside strings do not count). One pass, no recursion. */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

// Fatal: a byte sequence that is not UTF-8 is refused, not turned into U+FFFD that each database would then store as it is.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A UTF-16 surrogate without its partner (JSON lets `"\ud800"` through): not a character, and stored differently by each dialect. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** `additionalInfo.note.0`, or `body` at the top, as validation messages name fields. */
const named = (path: string[]) => (path.length === 0 ? 'body' : path.join('.'));

/**
 * The first value JSON can carry but Parley cannot keep as it was sent: a
 * string (value or key) holding a lone surrogate, which SQLite stores as three
 * U+FFFD and PostgreSQL as one, or a number beyond the float range (`1e400`
 * parses as Infinity, which JSON cannot even write back). One sentence naming
 * the field, or undefined.
 */
function unkeepable(value: unknown, path: string[] = []): string | undefined {
  if (typeof value === 'string') {
    return LONE_SURROGATE.test(value)
      ? `${named(path)} is not valid Unicode text: it holds a lone surrogate (an escape such as \\ud800 without its pair)`
      : undefined;
  }
  if (typeof value === 'number')
    return Number.isFinite(value)
      ? undefined
      : `${named(path)} is a number too large to represent (at most about 1.8e308)`;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (LONE_SURROGATE.test(key))
      return `${named(path)} has a key that is not valid Unicode text: it holds a lone surrogate (an escape such as \\ud800 without its pair)`;
    const found = unkeepable(item, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * JSON bodies: zero bytes with a JSON content type means "no body" (clients of
 * the hosted service send that for bodiless POSTs), and `__proto__` /
 * `constructor.prototype` keys are refused outright so no merge downstream can
 * pollute a prototype. Nesting is capped: 1 MiB of `[[[[...` parses, but the
 * validators, merges and serialisers that walk it recursively would overflow
 * the stack (a 500) on it. Bytes that are not UTF-8, lone surrogates and
 * numbers out of range are refused here, for every body, so that both
 * dialects store exactly what was sent or nothing.
 */
export function registerJsonParser(app: FastifyInstance): void {
  // JSON is the only body this API takes: anything else is a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => {
    let text: string;
    try {
      text = typeof body === 'string' ? body : utf8.decode(body);
    } catch {
      return done(new DomainError('invalid_json', { detail: 'Body is not valid UTF-8 text' }), undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(
        new DomainError('invalid_json', { detail: `Body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)` }),
        undefined,
      );
    }
    let parsed: unknown;
    try {
      parsed = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch {
      return done(new DomainError('invalid_json'), undefined);
    }
    const problem = unkeepable(parsed);
    if (problem !== undefined) return done(new DomainError('invalid_json', { detail: problem }), undefined);
    done(null, parsed);
  });
}

/**
 * An omitted body is the empty object: "no body", "zero bytes" and "{}" mean the
 * same thing to every route (docs/contract.md, Unsubscribe), and a route that needs
 * fields reports the first missing one by name.
 */
export function registerEmptyBodyDefault(app: FastifyInstance): void {
  // Only on routes that take a body: a hook on every route costs every GET a hook run.
  const defaultBody = (request: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    if (request.body === undefined && request.method !== 'GET' && request.method !== 'HEAD') request.body = {};
    done();
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((m) => m === 'GET' || m === 'HEAD' || m === 'OPTIONS')) return;
    const own =
      route.preValidation === undefined
        ? []
        : Array.isArray(route.preValidation)
          ? route.preValidation
          : [route.preValidation];
    route.preValidation = [defaultBody as never, ...own];
  });
}
