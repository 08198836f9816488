import { Ajv, type ErrorObject } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { isEmailAddress } from '../email-address.js';
export { describeValidationError } from './validation-messages.js';

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
  // verbose: each error carries the schema that failed, from which describeValidationError words its sentence.
  const ajv = new Ajv({
    coerceTypes,
    removeAdditional: false,
    useDefaults: true,
    allErrors: false,
    strict: false,
    verbose: true,
  });
  addFormats(ajv);
  // Internationalised addresses (RFC 6531) too, as the import reads them: what create accepts, an import accepts.
  ajv.addFormat('email', isEmailAddress);
  return ajv;
}

const strict = makeAjv(false);
const coercing = makeAjv(true);

/** JSON pointer of the first string (value or key) holding U+0000, if any. */
function nulAt(value: unknown, pointer = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? pointer : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const here = `${pointer}/${key}`;
    if (key.includes('\u0000')) return here;
    const found = nulAt(item, here);
    if (found !== undefined) return found;
  }
  return undefined;
}

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * PostgreSQL text cannot hold U+0000 (the query fails, a 500) while SQLite
 * stores it: refusing it at the edge keeps both dialects answering alike, as
 * an ordinary validation error naming the field.
 */
function refusingNul(validate: Validate): Validate {
  const check: Validate = (data) => {
    const ok = validate(data);
    check.errors = validate.errors;
    if (!ok) return false;
    const pointer = nulAt(data);
    if (pointer === undefined) return true;
    check.errors = [
      {
        instancePath: pointer,
        schemaPath: '#',
        keyword: 'nul',
        params: {},
        message: 'must not contain the NUL character',
      },
    ];
    return false;
  };
  return check;
}

// Many routes share one schema object (e.g. the lead id params): compile each once, not per route.
const compiled = { body: new WeakMap<object, Validate>(), other: new WeakMap<object, Validate>() };

export const validatorCompiler: FastifySchemaCompiler<any> = ({ schema, httpPart }) => {
  const cache = httpPart === 'body' ? compiled.body : compiled.other;
  let fn = cache.get(schema as object);
  if (!fn) {
    // Compiled on first use, not at start-up: compiling every route's schemas up front
    // was most of the time between `serve` and a ready server.
    const ajv = httpPart === 'body' ? strict : coercing;
    let validate: Validate | undefined;
    const lazy: Validate = (data) => {
      validate ??= ajv.compile(schema as object);
      const ok = validate(data);
      lazy.errors = validate.errors;
      return ok;
    };
    fn = refusingNul(lazy);
    cache.set(schema as object, fn);
  }
  return fn;
};
