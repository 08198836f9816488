import { Ajv, type ErrorObject } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
type FormatsPlugin = (ajv: Ajv) => Ajv;
const addFormats: FormatsPlugin =
  (formatsPlugin as unknown as { default?: FormatsPlugin }).default ?? (formatsPlugin as unknown as FormatsPlugin);

/**
 * Bodies are validated strictly (no type coercion, unknown fields are errors
 * where a schema says so); query strings and path params are text on the wire,
 * so they are coerced to the declared types.
 */
function makeAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ coerceTypes, removeAdditional: false, useDefaults: true, allErrors: false, strict: false });
  addFormats(ajv);
  return ajv;
}

const strict = makeAjv(false);
const coercing = makeAjv(true);

// Many routes share one schema object (e.g. the lead id params): compile each once, not per route.
const compiled = { body: new WeakMap<object, ReturnType<Ajv['compile']>>(), other: new WeakMap<object, ReturnType<Ajv['compile']>>() };

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const cache = httpPart === 'body' ? compiled.body : compiled.other;
  let fn = cache.get(schema as object);
  if (!fn) {
    fn = (httpPart === 'body' ? strict : coercing).compile(schema as object);
    cache.set(schema as object, fn);
  }
  return fn;
};

/** One readable sentence naming the offending field, e.g. `phone must be string`. */
export function describeValidationError(errors: ErrorObject[], part: string | undefined): string {
  const e = errors[0];
  if (!e) return 'Invalid request';
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (e.keyword === 'required') {
    const missing = String((e.params as { missingProperty?: string }).missingProperty);
    return `${path ? `${path}.` : ''}${missing} is required`;
  }
  if (e.keyword === 'additionalProperties') {
    const extra = String((e.params as { additionalProperty?: string }).additionalProperty);
    return `${path ? `${path}.` : ''}${extra} is not allowed`;
  }
  const subject = path || (part === 'body' ? 'body' : part === 'querystring' ? 'query' : part ?? 'request');
  return `${subject} ${e.message ?? 'is invalid'}`;
}
