import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route that reads its body in a format of its own (a CSV import, an RFC 8058 form post), not as JSON fields. */
    ownBodyFormat?: boolean;
  }
}

type Schema = Record<string | symbol, unknown>;

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

// Body schemas are shared between routes (and with the responses that embed them): each is closed once, as a copy.
const closedCopies = new WeakMap<Schema, Schema>();

/**
 * A copy of a body schema in which every object that lists its fields and does
 * not say otherwise refuses any other field (`additionalProperties: false`).
 * A typo (`chanel` for `channels`) must be a 400 naming it, never an omitted
 * field whose default acts (every channel unsubscribed). Free-form maps
 * (`Type.Record`: `patternProperties`) and objects that open themselves
 * (`additionalProperties: true`, Twilio's callbacks) keep taking any key.
 * `allOf` parts are left alone: closing one would refuse the others' fields.
 */
export function closedSchema<T>(schema: T): T {
  if (!isSchema(schema)) return schema;
  const known = closedCopies.get(schema);
  if (known) return known as T;
  const copy: Schema = { ...schema };
  if (isSchema(copy.properties)) {
    copy.properties = Object.fromEntries(Object.entries(copy.properties).map(([k, v]) => [k, closedSchema(v)]));
  }
  if (isSchema(copy.patternProperties)) {
    copy.patternProperties = Object.fromEntries(
      Object.entries(copy.patternProperties).map(([k, v]) => [k, closedSchema(v)]),
    );
  }
  if (isSchema(copy.additionalProperties)) copy.additionalProperties = closedSchema(copy.additionalProperties);
  if (isSchema(copy.items)) copy.items = closedSchema(copy.items);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map((b) => closedSchema(b));
  }
  if (copy.type === 'object' && copy.additionalProperties === undefined && copy.patternProperties === undefined) {
    copy.additionalProperties = false;
  }
  closedCopies.set(schema, copy);
  return copy as T;
}

/** A JSON object sent to an operation that takes no body: its first field is unknown like any other. */
function refuseBodyFields(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void {
  const body = request.body;
  if (isSchema(body) && (Object.getPrototypeOf(body) === Object.prototype || Object.getPrototypeOf(body) === null)) {
    const first = Object.keys(body)[0];
    if (first !== undefined) {
      done(new DomainError('invalid_request', { detail: `${first} is not allowed: this operation takes no body` }));
      return;
    }
  }
  done();
}

/**
 * Every body refuses fields it does not know, whatever route declares it: each
 * route's body schema is closed as it is registered (so the OpenAPI document
 * shows `additionalProperties: false` too), and a route without a body schema
 * refuses any field at all.
 */
export function registerClosedBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((m) => m === 'GET' || m === 'HEAD' || m === 'OPTIONS')) return;
    const schema = route.schema as Schema | undefined;
    if (schema?.body !== undefined) {
      route.schema = { ...schema, body: closedSchema(schema.body) };
      return;
    }
    if (route.config?.ownBodyFormat) return;
    const own =
      route.preValidation === undefined
        ? []
        : Array.isArray(route.preValidation)
          ? route.preValidation
          : [route.preValidation];
    route.preValidation = [...own, refuseBodyFields as never];
  });
}
