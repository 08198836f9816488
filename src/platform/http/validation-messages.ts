import type { ErrorObject } from 'ajv';

/**
 * Turns the schema validator's first error into one sentence a person can act
 * on: it names the field (`contactHours.start`, `tagIds.2`) and says what is
 * allowed (`channel must be one of: sms, voice, email`), worded from the
 * TypeBox schema that failed, never from the validator's own text ("must be
 * equal to constant", a raw regex).
 *
 * A schema may carry its own wording: `errorMessage: 'must be a time of day
 * written HH:MM'` is used as is after the field's name. Otherwise the keyword
 * that failed and the schema's values (enum, bounds, format, description) make
 * the sentence.
 */

type Schema = Record<string, unknown> & {
  type?: string | string[];
  errorMessage?: string;
  description?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  format?: string;
  pattern?: string;
};

/** An ajv error built with `verbose: true`: it carries the schema that failed. */
type Failure = ErrorObject & { parentSchema?: Schema };

const FORMATS: Record<string, string> = {
  email: 'a valid email address, like ann@example.com',
  'date-time': 'a date and time in ISO 8601 with its offset, like 2026-01-31T09:00:00Z',
  date: 'a date written YYYY-MM-DD, like 2026-01-31',
  time: 'a time written HH:MM:SS with its offset, like 09:00:00Z',
  uri: 'an absolute URL, like https://example.com/path',
  url: 'an absolute URL, like https://example.com/path',
  uuid: 'a UUID, like 0190a5b2-7c1e-7a3b-8f00-4b1d2c3e4f50',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  hostname: 'a host name',
};

/** Patterns in use whose meaning has no description in their schema. */
const PATTERNS: Record<string, string> = {
  '\\S': 'must not be blank',
  '^[^@\\s]+@[^@\\s]+$': 'must be an email address, like ann@example.com',
};

/** `Letters, digits` -> `letters, digits`; `HH:MM` and `IANA zone` stay as written. */
const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s.charAt(0).toLowerCase() + s.slice(1) : s);

const quote = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

/** `/contactHours/start` -> `contactHours.start`, `/tagIds/2` -> `tagIds.2` (JSON pointer escapes undone; the API has always named fields so). */
function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function partName(part: string | undefined): string {
  if (part === 'body') return 'body';
  if (part === 'querystring') return 'query';
  if (part === 'params') return 'path';
  return part ?? 'request';
}

/** `tagIds` -> `tag ids`, `leadIds` -> `lead ids`. */
function idsNoun(field: string): string | undefined {
  const m = /^(.+)Ids$/.exec(field);
  // biome-ignore lint/style/noNonNullAssertion: the regex's one group always takes part in a match
  return m ? `${m[1]!.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()} ids` : undefined;
}

/** The allowed values of a schema made only of constants (a TypeBox union of literals, or an enum). */
function allowedValues(schema: Schema | undefined): unknown[] | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum;
  if ('const' in schema) return [schema.const];
  const branches = schema.anyOf ?? schema.oneOf;
  if (!branches) return undefined;
  const values: unknown[] = [];
  for (const b of branches) {
    const v = allowedValues(b);
    if (!v) return undefined;
    values.push(...v);
  }
  return values;
}

const TYPES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
  object: 'an object',
  array: 'a list',
};

/** What a value of this schema is, as a noun phrase: `a list of tag ids`, `one of: sms, voice, email`, `a string or null`. */
function describeSchema(schema: Schema | undefined, field: string, atRoot: boolean): string {
  if (!schema) return 'a valid value';
  const values = allowedValues(schema);
  if (values) return values.length === 1 ? quote(values[0]) : `one of: ${values.map(quote).join(', ')}`;
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return [...new Set(branches.map((b) => describeSchema(b, field, atRoot)))].join(' or ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0) return 'a valid value';
  return types
    .map((t) => {
      if (t === 'object') return atRoot ? 'a JSON object' : 'an object';
      if (t === 'array') return listPhrase(schema, field);
      // biome-ignore lint/style/noNonNullAssertion: the same lookup was just checked
      if (t === 'string' && schema.format && FORMATS[schema.format]) return FORMATS[schema.format]!;
      return TYPES[t] ?? `a ${t}`;
    })
    .join(' or ');
}

function listPhrase(schema: Schema, field: string): string {
  const items = schema.items;
  const values = allowedValues(items);
  if (values) return `a list of: ${values.map(quote).join(', ')}`;
  const ids = idsNoun(field);
  if (ids) return `a list of ${ids}`;
  if (!items || typeof items !== 'object') return 'a list';
  if (items.description) return `a list of ${items.description}`;
  const itemType = Array.isArray(items.type) ? items.type[0] : items.type;
  const plural: Record<string, string> = {
    string: 'strings',
    integer: 'integers',
    number: 'numbers',
    boolean: 'true/false values',
    object: 'objects',
    array: 'lists',
  };
  return itemType && plural[itemType] ? `a list of ${plural[itemType]}` : 'a list';
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The predicate for one failed keyword, e.g. `must be at most 1000`. */
function predicate(e: Failure, field: string, atRoot: boolean): string {
  const schema = e.parentSchema;
  const params = e.params as Record<string, unknown>;
  if (typeof schema?.errorMessage === 'string' && e.keyword !== 'required' && e.keyword !== 'additionalProperties')
    return schema.errorMessage;
  switch (e.keyword) {
    case 'type':
    case 'const':
    case 'enum':
    case 'anyOf':
    case 'oneOf':
      return `must be ${describeSchema(schema, field, atRoot)}`;
    case 'format':
      return `must be ${FORMATS[String(params.format)] ?? `a valid ${String(params.format)}`}`;
    case 'pattern': {
      const known = PATTERNS[String(params.pattern)];
      if (known) return known;
      return schema?.description ? `must be ${lowerFirst(schema.description)}` : 'is not in the accepted form';
    }
    case 'minLength': {
      const n = Number(params.limit);
      return n <= 1 ? 'must not be empty' : `must be at least ${plural(n, 'character', 'characters')} long`;
    }
    case 'maxLength':
      return `must be at most ${plural(Number(params.limit), 'character', 'characters')} long`;
    case 'minimum':
      return `must be at least ${String(params.limit)}`;
    case 'maximum':
      return `must be at most ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `must be greater than ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `must be less than ${String(params.limit)}`;
    case 'multipleOf':
      return `must be a multiple of ${String(params.multipleOf)}`;
    case 'minItems': {
      const n = Number(params.limit);
      const what = idsNoun(field);
      return n <= 1
        ? `must list at least one ${what ? what.replace(/ ids$/, ' id') : 'item'}`
        : `must list at least ${plural(n, 'item', 'items')}`;
    }
    case 'maxItems':
      return `must list at most ${plural(Number(params.limit), 'item', 'items')}`;
    case 'uniqueItems':
      return `must not list the same value twice (items ${String(params.j)} and ${String(params.i)} are equal)`;
    case 'minProperties': {
      const names = schema?.properties ? Object.keys(schema.properties) : [];
      if (names.length > 0) return `must set at least one of: ${names.join(', ')}`;
      return `must have at least ${plural(Number(params.limit), 'field', 'fields')}`;
    }
    case 'maxProperties':
      return `must have at most ${plural(Number(params.limit), 'field', 'fields')}`;
    case 'nul':
      return 'must not contain the NUL character';
    default:
      return 'is not valid';
  }
}

/**
 * ajv reports a failed `anyOf` after the errors of each of its branches. The
 * most useful one is a branch that got further: one failing deeper in the
 * value (`contactHours.start` inside a nullable object), or one of the right
 * type failing a bound (an empty string where `string | null` is allowed).
 * Otherwise the union itself is described: `must be a string or null`.
 */
function pick(errors: Failure[]): Failure {
  // biome-ignore lint/style/noNonNullAssertion: ajv reports at least one error when validation fails
  const last = errors[errors.length - 1]!;
  // biome-ignore lint/style/noNonNullAssertion: as above
  if (last.keyword !== 'anyOf' && last.keyword !== 'oneOf') return errors[0]!;
  const branches = errors.slice(0, -1).filter((b) => b.instancePath.startsWith(last.instancePath));
  const deeper = branches.filter((b) => b.instancePath.length > last.instancePath.length);
  if (deeper.length > 0) return pick(deeper);
  const constrained = branches.find((b) => !['type', 'const', 'enum', 'anyOf', 'oneOf'].includes(b.keyword));
  return constrained ?? last;
}

/** One sentence naming the offending field and what it accepts, e.g. `channel must be one of: sms, voice, email`. */
export function describeValidationError(errors: ErrorObject[], part: string | undefined): string {
  if (errors.length === 0) return 'The request is not valid';
  const e = pick(errors as Failure[]);
  const path = fieldPath(e.instancePath);
  const prefix = path ? `${path}.` : '';
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'required') return `${prefix}${String(params.missingProperty)} is required`;
  if (e.keyword === 'additionalProperties') return `${prefix}${String(params.additionalProperty)} is not allowed`;
  const names = (errors as Failure[]).find((x) => x.keyword === 'propertyNames');
  if (names) {
    // ajv reports the key's own failure first (a pattern, a length): the key is what to name, with the form keys must take.
    const where = fieldPath(names.instancePath) || partName(part);
    const key = JSON.stringify(String((names.params as Record<string, unknown>).propertyName));
    const form = (names.parentSchema?.propertyNames as Schema | undefined)?.description;
    return `${where} has a key that is not allowed: ${key}${form ? ` (keys must be ${lowerFirst(form)})` : ''}`;
  }
  if (e.keyword === 'dependentRequired' || e.keyword === 'dependencies') {
    return `${prefix}${String(params.missingProperty)} is required when ${prefix}${String(params.property)} is set`;
  }
  const field =
    path
      .split('.')
      .filter((s) => s && !/^\d+$/.test(s))
      .pop() ?? '';
  return `${path || partName(part)} ${predicate(e, field, path === '')}`;
}
