import fc from 'fast-check';

/**
 * Request generators driven by the OpenAPI document: a JSON Schema becomes a
 * fast-check arbitrary of values that mostly pass it ("valid-ish", so requests
 * get past validation into the services), and a set of mutations turns them
 * into the hostile inputs a careless or malicious client sends.
 */

export type Schema = Record<string, any>;

export interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

export interface Operation {
  parameters?: { in: 'path' | 'query' | 'header'; name: string; required?: boolean; schema: Schema }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

/** Real values of the running server, so generated requests reach real rows. */
export interface Pools {
  phones: string[];
  emails: string[];
  profiles: string[];
  /** Ids that exist (for the caller and for another organization) and ids that do not. */
  uuids: string[];
  /** The caller's real values of each path parameter (leadId, id, deliveryId, name). */
  ids: Record<string, string[]>;
  /** Real ids of another organization. */
  foreign: string[];
  webhookUrls: string[];
}

/** A string that becomes raw JSON text when serialised (see `serialise`): numbers JSON.stringify cannot write, `__proto__` keys, ... */
const RAW = '\u0001raw:';
export const raw = (text: string): string => `${RAW}${text}\u0001`;

/** JSON text of `value`, with every `raw()` marker (a whole string value or key) replaced by its text. */
export function serialise(value: unknown): string {
  return JSON.stringify(value).replace(
    /"\\u0001raw:((?:[^"\\]|\\.)*?)\\u0001"/g,
    (_m, inner: string) => JSON.parse(`"${inner}"`) as string,
  );
}

const resolve = (doc: OpenApiDoc, schema: Schema): Schema => {
  if (typeof schema.$ref === 'string') {
    const name = /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1];
    const target = name ? doc.components.schemas[name] : undefined;
    if (!target) throw new Error(`unresolvable $ref ${schema.$ref}`);
    return target;
  }
  return schema;
};

const phoneLike = fc.oneof(
  fc.integer({ min: 0, max: 9999 }).map((n) => `+1415555${String(n).padStart(4, '0')}`),
  fc.integer({ min: 0, max: 9999 }).map((n) => `(415) 555-${String(n).padStart(4, '0')}`),
  fc.constantFrom(
    '+442079460958',
    '4155550100',
    '+1 415 555 0100',
    '+1',
    '+999999999999999999',
    '911',
    'not a phone',
    '+14155550100 ext 5',
  ),
);
const timeZones = fc.constantFrom(
  'America/Chicago',
  'UTC',
  'Europe/Paris',
  'Asia/Kolkata',
  'Pacific/Chatham',
  'Mars/Olympus',
  'utc',
  'EST5EDT',
  'Etc/GMT+12',
);
const commands = fc.constantFrom(
  'send message: Hello there',
  'follow up in 5 minutes: Checking in',
  'follow up in 2 days: Still there?',
  'follow up in 0 hours: now',
  'do something odd',
);
const dateTimes = fc.oneof(
  fc
    .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.integer({ min: -120, max: 60 * 24 * 400 }).map((m) => new Date(Date.now() + m * 60_000).toISOString()),
  fc.constantFrom(
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '2024-02-29T12:00:00+14:00',
    '2024-01-01T00:00:00.123456789Z',
    '2024-01-01',
  ),
);

/** Strings of every kind: plain, any Unicode grapheme, any code unit (lone surrogates included), control characters. */
const oddStrings = [
  '\u0000',
  '\u202e\u0041',
  '\ud800',
  '\udfff\ud800',
  '\uffff',
  '\r\n\t',
  'e\u0301'.repeat(50),
  '😀'.repeat(20),
  ' ',
  '%00',
  '${x}',
  '{{firstName}}',
  "'; drop table leads; --",
];

export function anyString(minLength = 0, maxLength = 40): fc.Arbitrary<string> {
  const constraints = { minLength, maxLength };
  const odd = oddStrings.filter((s) => s.length >= minLength && s.length <= maxLength);
  return fc.oneof(
    fc.string(constraints),
    fc.string({ ...constraints, unit: 'grapheme' }),
    fc.string({ ...constraints, unit: 'binary' }),
    ...(odd.length > 0 ? [fc.constantFrom(...odd)] : []),
  );
}

/** Values guessed from a field's name, where the schema alone would almost never produce an accepted value. */
function hinted(name: string, pools: Pools): fc.Arbitrary<string> | undefined {
  switch (name) {
    case 'phone':
    case 'sendingNumber':
      return fc.oneof(fc.constantFrom(...pools.phones), phoneLike);
    case 'from':
    case 'to':
      return fc.oneof(fc.constantFrom(...pools.phones), phoneLike, fc.constantFrom(...pools.emails));
    case 'email':
      return fc.oneof(fc.constantFrom(...pools.emails), fc.emailAddress());
    case 'url':
      return fc.oneof(fc.constantFrom(...pools.webhookUrls), fc.webUrl());
    case 'profile':
    case 'customerProfile':
      return fc.constantFrom(...pools.profiles);
    case 'timeZone':
      return timeZones;
    case 'command':
      return commands;
    case 'tagIds':
    case 'leadId':
    case 'id':
    case 'deliveryId':
      return fc.constantFrom(...pools.uuids);
    default:
      return undefined;
  }
}

function stringArbitrary(schema: Schema, name: string, pools: Pools): fc.Arbitrary<string> {
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as string[]));
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 40, 40);
  const free = anyString(min, Math.max(min, max));
  let typical: fc.Arbitrary<string> | undefined;
  if (schema.format === 'date-time') typical = dateTimes;
  else if (schema.format === 'email') typical = fc.oneof(fc.constantFrom(...pools.emails), fc.emailAddress());
  else if (typeof schema.pattern === 'string')
    typical = fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity));
  else typical = hinted(name, pools);
  return typical ? fc.oneof({ weight: 4, arbitrary: typical }, { weight: 1, arbitrary: free }) : free;
}

/** Values of `schema` (mostly valid; free strings and hints may miss, on purpose). */
export function valueOf(doc: OpenApiDoc, input: Schema, name: string, pools: Pools, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, input);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives))
    return fc.oneof(...alternatives.map((s: Schema) => valueOf(doc, s, name, pools, depth)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'string':
      return stringArbitrary(schema, name, pools);
    case 'integer': {
      const min = schema.minimum ?? -1_000_000;
      const max = schema.maximum ?? 1_000_000;
      return fc.oneof(
        fc.integer({ min, max: Math.min(max, min + 10) }),
        fc.integer({ min, max }),
        fc.constantFrom(min, max),
      );
    }
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueOf(doc, schema.items ?? {}, name, pools, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 4, 4)),
      });
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const keys = Object.keys(properties);
      if (keys.length === 0) {
        // A free-form map (additionalInfo): any JSON under string keys.
        return fc.dictionary(
          anyString(0, 12),
          depth > 2 ? fc.jsonValue({ maxDepth: 1 }) : fc.jsonValue({ maxDepth: 3 }),
          { maxKeys: 6 },
        );
      }
      const model = Object.fromEntries(keys.map((k) => [k, valueOf(doc, properties[k]!, k, pools, depth + 1)]));
      return fc.record(model, { requiredKeys: (schema.required ?? []) as string[] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Values of the wrong kind for almost any field. */
export const wrongValues: unknown[] = [
  null,
  0,
  -1,
  1.5,
  -0.0,
  2 ** 31,
  2 ** 53 + 2,
  1e308,
  -1e308,
  Number.MIN_VALUE,
  true,
  false,
  '',
  'x',
  ' ',
  '1',
  'true',
  'null',
  [],
  [1],
  [null],
  ['sms', 'sms'],
  {},
  { a: 1 },
  { '': '' },
  raw('1e1000'),
  raw('-1e1000'),
  raw('-0'),
  raw('1e-400'),
  raw('123456789012345678901234567890'),
  raw('0.1e1'),
  raw('1E2'),
];

/** Keys a client must never be able to write, or that target a prototype. */
export const forbiddenKeys = [
  'id',
  'organizationId',
  'organization_id',
  'createdAt',
  'updatedAt',
  'lastActivityAt',
  'isUnsubscribed',
  'subscriptions',
  'isDoNotContact',
  'hasReplied',
  'isAiOn',
  'secret',
  'digest',
  'scopes',
  'role',
  'admin',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
];

const deep = (depth: number, asArray: boolean): string =>
  asArray ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** Text that is not JSON, or JSON that is not an object. */
export const notAnObject = [
  '',
  ' ',
  '{',
  '{"a":',
  '[',
  'nul',
  'tru',
  '{"a":1,}',
  "{'a':1}",
  '{a:1}',
  '\u0000',
  '\ufeff{}',
  '{} {}',
  '/* c */{}',
  'NaN',
  'Infinity',
  '"\\u0000"',
  '1',
  '-1',
  'null',
  'true',
  '[]',
  '"text"',
  '[{}]',
  '{"a":"\\ud800"}',
  '{"a":"\\x41"}',
  '{"a":01}',
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"a":{"__proto__":{"polluted":1}}}',
  '\n\n{}\n',
  '{"a":1}\u0000',
];

export const contentTypes = [
  null,
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;',
  'application/jsonp',
  'application/vnd.api+json',
  '*/*',
  '',
  'application/json, text/plain',
  'application/json; boundary=x; charset=utf-8',
  'application/ json',
];

/** What one mutation did, for the failure message, and the body text it produced. */
export interface BodyCase {
  label: string;
  text: string | undefined;
  /** null: send no content-type header; undefined: application/json. */
  contentType?: string | null;
}

const setAt = (value: unknown, key: string, v: unknown): unknown =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? { ...(value as object), [key]: v }
    : { [key]: v };

/**
 * A body for an operation: valid-ish most of the time, otherwise mutated in
 * one of the ways listed in the hardening issue.
 */
export function bodyCase(
  valid: fc.Arbitrary<unknown>,
  schema: Schema | undefined,
  hasBody: boolean,
): fc.Arbitrary<BodyCase> {
  const keysOf = (v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : []);
  const anyKey = (v: unknown) => fc.constantFrom(...keysOf(v), ...Object.keys(schema?.properties ?? {}), 'extra');
  const json = (label: string, value: unknown): BodyCase => ({ label, text: serialise(value) });

  const cases: fc.WeightedArbitrary<BodyCase>[] = [
    { weight: hasBody ? 16 : 1, arbitrary: valid.map((v) => json('valid-ish', v)) },
    { weight: hasBody ? 0 : 12, arbitrary: fc.constant({ label: 'no body', text: undefined, contentType: null }) },
    {
      weight: 2,
      arbitrary: valid.chain((v) => {
        const required: string[] = schema?.required ?? [];
        const present = required.filter((k) => keysOf(v).includes(k));
        if (present.length === 0) return fc.constant(json('valid-ish', v));
        return fc.constantFrom(...present).map((k) => {
          const copy = { ...(v as Record<string, unknown>) };
          delete copy[k];
          return json(`without required ${k}`, copy);
        });
      }),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.oneof(fc.constantFrom(...forbiddenKeys), anyString(1, 12)), fc.jsonValue({ maxDepth: 2 }))
        .map(([v, k, x]) => json(`extra field ${JSON.stringify(k)}`, setAt(v, k, x))),
    },
    {
      weight: 3,
      arbitrary: valid.chain((v) =>
        fc
          .tuple(anyKey(v), fc.constantFrom(...wrongValues))
          .map(([k, x]) => json(`wrong type at ${k}: ${JSON.stringify(x)}`, setAt(v, k, x))),
      ),
    },
    {
      weight: 1,
      arbitrary: valid.chain((v) =>
        fc
          .tuple(anyKey(v), fc.constantFrom(10_000, 100_000, 1024 * 1024 + 16))
          .map(([k, n]) => json(`huge string (${n}) at ${k}`, setAt(v, k, 'x'.repeat(n)))),
      ),
    },
    {
      weight: 1,
      arbitrary: valid.chain((v) =>
        fc
          .tuple(anyKey(v), fc.constantFrom(1001, 100_000), fc.constantFrom<unknown>('sms', 1, {}, null))
          .map(([k, n, item]) => json(`huge array (${n}) at ${k}`, setAt(v, k, Array(n).fill(item)))),
      ),
    },
    {
      weight: 1,
      arbitrary: valid.chain((v) =>
        fc
          .tuple(anyKey(v), fc.constantFrom(32, 64, 65, 100, 1000, 100_000), fc.boolean())
          .map(([k, n, arr]) => json(`nesting ${n} deep at ${k}`, setAt(v, k, raw(deep(n, arr))))),
      ),
    },
    {
      weight: 1,
      arbitrary: valid.chain((v) =>
        fc.tuple(anyKey(v), anyString(0, 200)).map(([k, s]) => json(`odd text at ${k}`, setAt(v, k, s))),
      ),
    },
    {
      weight: 1,
      arbitrary: valid.chain((v) =>
        fc.tuple(anyKey(v), fc.constantFrom('__proto__', 'constructor')).map(([k, evil]) => {
          const payload =
            evil === '__proto__'
              ? raw('{"__proto__":{"polluted":"yes"}}')
              : raw('{"constructor":{"prototype":{"polluted":"yes"}}}');
          return json(`${evil} inside ${k}`, setAt(v, k, payload));
        }),
      ),
    },
    {
      weight: 1,
      arbitrary: valid.chain((v) =>
        anyKey(v).map((k) => {
          // A repeated key: JSON.parse keeps the last one, so a validator that saw the first would be fooled.
          const text = serialise(v)
            .replace(/^\{/, `{${JSON.stringify(k)}:{"repeated":true},`)
            .replace(/,}$/, '}');
          return { label: `duplicate key ${k}`, text: text === '{' ? '{}' : text };
        }),
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(...notAnObject)
        .map((t) => ({ label: `body ${JSON.stringify(t.slice(0, 40))}`, text: t })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...contentTypes))
        .map(([v, ct]) => ({ label: `content-type ${JSON.stringify(ct)}`, text: serialise(v), contentType: ct })),
    },
  ];
  return fc.oneof(...cases.filter((c) => c.weight > 0));
}

/** Path segments no client should send, already percent-encoded as they go on the wire. */
export const oddIds = [
  ' ',
  '%20',
  '..',
  '%2e%2e',
  '.',
  '%2F',
  'a%2Fb',
  '%00',
  '%0A',
  '%ZZ',
  '%E0%A4%A',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  '0',
  '-1',
  '1e309',
  'NaN',
  "'%20OR%201=1--",
  '%27',
  '%22',
  '%3Cscript%3E',
  '%C3%BC',
  '%F0%9F%98%80',
  '%E2%80%AE',
  '%ED%A0%80',
  '%FF',
  'x'.repeat(100),
  'x'.repeat(101),
  'x'.repeat(200),
  'x'.repeat(250),
  '00000000-0000-0000-0000-000000000000',
  '{00000000-0000-7000-8000-000000000001}',
  'lookup',
  'create',
  'default',
  '*',
  '%2A',
  '%25',
];

/** Percent-encodes every byte of the UTF-8 form that is not unreserved (a lone surrogate becomes U+FFFD, as on any wire). */
export function pct(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export function pathParam(name: string, pools: Pools): fc.Arbitrary<string> {
  const own = pools.ids[name] ?? [];
  const real = own.length > 0 ? fc.constantFrom(...own.map(pct)) : fc.uuid();
  return fc.oneof(
    { weight: 10, arbitrary: real },
    { weight: 1, arbitrary: fc.constantFrom(...pools.foreign.map(pct)) },
    { weight: 2, arbitrary: fc.constantFrom(...oddIds) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: real.map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: anyString(1, 60).map(pct) },
  );
}

/** Values of a query parameter: its schema's, or wrong ones. */
export function queryValue(
  doc: OpenApiDoc,
  name: string,
  schema: Schema,
  pools: Pools,
  nextTokens: string[],
): fc.Arbitrary<string> {
  const typed = valueOf(doc, schema, name, pools).map((v) => String(v));
  return fc.oneof(
    { weight: 5, arbitrary: typed },
    { weight: name === 'nextToken' ? 3 : 0, arbitrary: fc.constantFrom('', ...nextTokens.slice(-20)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        'abc',
        '1.5',
        '-1',
        '0',
        '1001',
        '1e3',
        '0x10',
        ' 5',
        '5 ',
        'true',
        'null',
        '[]',
        '{}',
        '99999999999999999999',
        'AAAA',
        'eyJpZCI6IngifQ',
        '%00',
        '\u0000',
        '\ud800',
        'x'.repeat(600),
        'x'.repeat(4000),
        '2024-13-45T99:99:99Z',
        '+1 (415) 555-0100',
      ),
    },
    { weight: 1, arbitrary: anyString(0, 80) },
  );
}
