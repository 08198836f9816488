import type { FastifyInstance } from 'fastify';
import sjson from 'secure-json-parse';
import { BadRequest } from '../errors.js';

/**
 * JSON bodies: zero bytes with a JSON content type means "no body" (clients of
 * the hosted service send that for bodiless POSTs), and `__proto__` /
 * `constructor.prototype` keys are refused outright so no merge downstream can
 * pollute a prototype.
 */
export function registerJsonParser(app: FastifyInstance): void {
  // JSON is the only body this API takes: anything else is a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
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
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.method !== 'GET' && request.method !== 'HEAD') request.body = {};
  });
}
