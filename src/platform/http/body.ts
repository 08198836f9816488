import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { BadRequest } from '../errors.js';

/** Deeper than any real body needs (additionalInfo included), shallow enough for every recursive walk downstream. */
export const MAX_JSON_DEPTH = 64;

/** Whether arrays and objects in JSON text nest deeper than `limit` (brackets inside strings do not count). One pass, no recursion. */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * JSON bodies: zero bytes with a JSON content type means "no body" (clients of
 * the hosted service send that for bodiless POSTs), and `__proto__` /
 * `constructor.prototype` keys are refused outright so no merge downstream can
 * pollute a prototype. Nesting is capped: 1 MiB of `[[[[...` parses, but the
 * validators, merges and serialisers that walk it recursively would overflow
 * the stack (a 500) on it.
 */
export function registerJsonParser(app: FastifyInstance): void {
  // JSON is the only body this API takes: anything else is a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(new BadRequest(`Body is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`, 'invalid_json'), undefined);
    }
    try {
      done(null, sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new BadRequest('Body is not valid JSON', 'invalid_json'), undefined);
    }
  });
}

/**
 * An omitted body is the empty object: "no body", "zero bytes" and "{}" mean the
 * same thing to every route (decisions.md, unsubscribe), and a route that needs
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
    const own = route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation];
    route.preValidation = [defaultBody as never, ...own];
  });
}
