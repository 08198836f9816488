import { randomUUID } from 'node:crypto';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { issueUnsubscribeToken, unsubscribeKey } from '../../src/channels/unsubscribe-token.js';
import { twilioSignature } from '../../src/providers/twilio/signature.js';
import { dispatchEvents } from '../../src/webhooks/dispatcher.js';
import { createLead, describeEachDialect, uniquePhone } from '../support/harness.js';
import { sampleBody, scopeTable, type RouteEntry } from '../support/routes.js';
import {
  anyString,
  bodyCase,
  forbiddenKeys,
  pathParam,
  pct,
  queryValue,
  valueOf,
  type OpenApiDoc,
  type Operation,
  type Pools,
} from './arbitraries.js';
import { rawExchange, wireClient, type WireRequest, type WireResponse } from './wire.js';
import { messageOf } from '../support/assert.js';

/**
 * Property-based fuzzing of the whole API, driven by GET /v1/openapi.json:
 * for every operation, generated requests (valid-ish and hostile) over real
 * HTTP. Every answer must be a status the operation documents, with a body
 * that fits the schema declared for that status; never a 500, never slower
 * than REQUEST_MS, and the process neither crashes nor grows without bound.
 *
 * FUZZ_SEED fixes the sequence (a failure prints the seed and path to replay
 * it); FUZZ_RUNS is the number of requests per operation. `npm test` runs a
 * small fixed-seed sample; `npm run fuzz` runs 5000 per operation.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
const RUNS = Number(process.env.FUZZ_RUNS ?? 30);
const REQUEST_MS = 5000;
/** Requests per operation also sent all at once, after the sequential run. */
const BURST = 16;
/**
 * The server runs in this process. Its live heap (after a full collection)
 * may grow by this much over the whole run, whatever FUZZ_RUNS is: caches are
 * bounded, so anything more is a leak. Resident memory may peak higher while
 * megabyte bodies are in flight, but within RSS_GROWTH_LIMIT.
 */
const HEAP_GROWTH_LIMIT = 64 * 1024 * 1024;
const RSS_GROWTH_LIMIT = 1024 * 1024 * 1024;
const SIGNING_SECRET = 'fuzz-signing-secret-0123456789abcdefghij';
const TWILIO_TOKEN = 'fuzz-twilio-auth-token';
const SENDING_NUMBER = '+14155559999';

const timeoutFor = (requests: number) => 60_000 + requests * 50;

/** A full garbage collection, without starting node with --expose-gc. */
v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const liveHeap = () => {
  collectGarbage();
  return process.memoryUsage().heapUsed;
};
const docPath = (url: string) => url.replace(/^\/v1/, '').replace(/:([A-Za-z]+)/g, '{$1}');
const clip = (text: string, n = 300) => (text.length > n ? `${text.slice(0, n)}... (${text.length} chars)` : text);

/** Authenticated operations in table order, deletions last (so the others keep finding real rows). */
const operations: RouteEntry[] = [
  ...scopeTable().filter((r) => r.scope !== 'public' && r.method !== 'DELETE'),
  ...scopeTable().filter((r) => r.scope !== 'public' && r.method === 'DELETE'),
];

interface Fixtures {
  keyA: string;
  keyB: string;
  readerA: string;
  leadA: string;
  leadEmailOnly: string;
  leadB: string;
  organizationA: string;
}

/** FUZZ_STATS=1 prints how often each operation answered each status: a check that requests get past validation. */
const stats = new Map<string, Map<number, number>>();
function count(operation: string, status: number): void {
  const byStatus = stats.get(operation) ?? new Map<number, number>();
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  stats.set(operation, byStatus);
}

describeEachDialect(
  'fuzz: every operation of the OpenAPI document',
  (ctx) => {
    let doc: OpenApiDoc;
    let ajv: Ajv2020;
    let pools: Pools;
    let fixtures: Fixtures;
    let wire: ReturnType<typeof wireClient>;
    const nextTokens: string[] = [];
    const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    let heapBefore = 0;
    let rssBefore = 0;
    let rssPeak = 0;
    let sampler: NodeJS.Timeout | undefined;

    beforeAll(async () => {
      const ts = ctx();
      const res = await ts.raw('/v1/openapi.json');
      expect(res.status).toBe(200);
      doc = res.body as OpenApiDoc;
      const addFormats = ((formatsPlugin as unknown as { default?: unknown }).default ?? formatsPlugin) as (
        a: Ajv2020,
      ) => Ajv2020;
      ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
      ajv.addSchema({ ...doc, $id: 'openapi' });
      wire = wireClient(ts.url, REQUEST_MS);

      const { acme, beta } = ts;
      const phoneA = uniquePhone();
      const leadA = await createLead(acme, {
        phone: phoneA,
        email: 'ann@example.com',
        additionalInfo: { plan: 'gold' },
      });
      const leadEmailOnly = await createLead(acme, { phone: undefined, email: 'only@example.com' });
      const leadB = await createLead(beta, { email: 'bob@example.org' });
      expect(
        (
          await acme.post('/customerProfiles', {
            name: 'sales',
            openingMessage: 'Hi {{firstName}}',
            questions: ['Budget?'],
          })
        ).status,
      ).toBe(201);
      expect((await beta.post('/customerProfiles', { name: 'beta-only' })).status).toBe(201);
      const hookA = await acme.post('/webhooks', { url: 'http://127.0.0.1:9/hook' });
      const hookB = await beta.post('/webhooks', { url: 'http://127.0.0.1:9/other' });
      expect([hookA.status, hookB.status]).toEqual([201, 201]);
      const dncPhone = uniquePhone();
      expect((await acme.post('/dnc/register', { phone: dncPhone })).status).toBe(200);
      expect((await acme.post(`/leads/${leadA}/sendMessage`, { message: 'Hello from the fuzz fixtures' })).status).toBe(
        200,
      );
      expect(
        (await acme.post(`/leads/${leadA}/addContext`, { context: 'Prefers mornings', command: 'send message: hi' }))
          .status,
      ).toBe(200);
      expect((await acme.patch('/settings', { sendingNumber: SENDING_NUMBER })).status).toBe(200);
      const reader = await ts.clientWithScopes(['leads:read']);
      // Delivery rows to replay and list: the outbox fanned out once, by hand (no worker runs, nothing is sent).
      expect((await acme.post(`/leads/${leadA}/unsubscribe`, { channels: ['email'] })).status).toBe(200);
      await dispatchEvents(ts.server.deps, 500);
      const deliveries = (await acme.get(`/webhooks/${hookA.body.id}/deliveries`)).body.deliveries as { id: string }[];
      expect(deliveries.length).toBeGreaterThan(0);

      const organizationA = (
        await ts.server.store.db
          .selectFrom('organizations')
          .select('id')
          .where('name', '=', 'acme')
          .executeTakeFirstOrThrow()
      ).id;
      fixtures = { keyA: acme.key, keyB: beta.key, readerA: reader.key, leadA, leadEmailOnly, leadB, organizationA };
      pools = {
        phones: [phoneA, dncPhone, SENDING_NUMBER, uniquePhone()],
        emails: ['ann@example.com', 'only@example.com', 'bob@example.org', 'nobody@example.net'],
        profiles: ['default', 'sales', 'beta-only', 'nope', 'Sales', 'a b'],
        uuids: [leadA, leadEmailOnly, leadB, hookA.body.id, hookB.body.id, randomUUID()],
        ids: {
          leadId: [leadA, leadA, leadEmailOnly],
          id: [hookA.body.id],
          deliveryId: deliveries.map((d) => d.id),
          name: ['default', 'sales', 'default'],
        },
        foreign: [leadB, hookB.body.id, 'beta-only'],
        webhookUrls: [
          'http://127.0.0.1:9/hook',
          'https://127.0.0.1:9/h?x=1',
          'http://[::1]:9/',
          'ftp://127.0.0.1/x',
          'http://user:pw@127.0.0.1:9/',
          'not a url',
          'https://',
        ],
      };

      // Build what the test side keeps for good before measuring: fast-check's table of code points (about 90 MB)
      // and every response validator. What the heap gains after this is the server's.
      fc.sample(anyString(0, 40), 50);
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(ops))
          for (const status of Object.keys(op.responses)) validatorFor(path, method, status);
      }
      heapBefore = liveHeap();
      rssBefore = process.memoryUsage().rss;
      rssPeak = rssBefore;
      sampler = setInterval(() => {
        rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      }, 100);
    });

    afterAll(async () => {
      clearInterval(sampler);
      await wire?.close();
      if (process.env.FUZZ_STATS) {
        for (const [operation, byStatus] of stats)
          console.log(
            `${operation}: ${[...byStatus]
              .sort(([a], [b]) => a - b)
              .map(([st, n]) => `${st}x${n}`)
              .join(' ')}`,
          );
        console.log(
          `live heap ${Math.round(heapBefore / 1e6)} MB before, ${Math.round(liveHeap() / 1e6)} MB after; resident ${Math.round(rssBefore / 1e6)} MB before, ${Math.round(rssPeak / 1e6)} MB at the peak`,
        );
        stats.clear();
      }
    });

    const validatorFor = (template: string, method: string, status: string) => {
      const pointer = [
        'paths',
        template,
        method.toLowerCase(),
        'responses',
        status,
        'content',
        'application/json',
        'schema',
      ]
        .map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1')))
        .join('/');
      return ajv.getSchema(`openapi#/${pointer}`);
    };

    /** Sends `req` and holds its answer to the document; answers the response for further checks. */
    const exchange = async (
      op: Operation,
      method: string,
      template: string,
      req: WireRequest,
      label: string,
    ): Promise<WireResponse> => {
      const what = () => `${req.method} ${clip(req.path, 200)} [${label}]`;
      let res: WireResponse;
      try {
        res = await wire.send(req);
      } catch (err) {
        throw new Error(`${what()}: no answer (${(err as Error).message})`);
      }
      const status = String(res.status);
      const fail = (why: string) => new Error(`${what()} -> ${res.status}: ${why}\n${clip(res.text)}`);
      if (res.status >= 500) throw fail('a server error');
      if (res.ms > REQUEST_MS) throw fail(`took ${Math.round(res.ms)} ms`);
      const documented = op.responses[status];
      if (!documented) throw fail(`status not documented (documented: ${Object.keys(op.responses).join(', ')})`);
      if (req.method === 'HEAD') return res;
      // An answer documented in another media type only (the consent export's text/csv) is held to that type.
      const media = Object.keys((documented as { content?: Record<string, unknown> }).content ?? {});
      const type = String(res.headers['content-type'] ?? '');
      if (media.length > 0 && !media.includes('application/json')) {
        if (!media.some((m) => type.startsWith(m)))
          throw fail(`content-type ${type} (documented: ${media.join(', ')})`);
        return res;
      }
      if (!type.startsWith('application/json')) throw fail(`content-type ${res.headers['content-type']}`);
      let body: unknown;
      try {
        body = JSON.parse(res.text);
      } catch {
        throw fail('body is not JSON');
      }
      const validate = validatorFor(template, method, status);
      if (!validate) throw fail('no schema documented for this status');
      if (!validate(body))
        throw fail(`body does not match the documented schema: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
      const token = (body as { nextToken?: unknown }).nextToken;
      if (typeof token === 'string' && nextTokens.length < 200) nextTokens.push(token);
      return res;
    };

    const keyHeaders = (): fc.Arbitrary<string[]> => {
      const { keyA, keyB, readerA } = fixtures;
      return fc.oneof(
        { weight: 24, arbitrary: fc.constant<string[]>(['x-api-key', keyA]) },
        { weight: 1, arbitrary: fc.constant<string[]>([]) },
        { weight: 1, arbitrary: fc.constant<string[]>(['x-api-key', keyB]) },
        { weight: 1, arbitrary: fc.constant<string[]>(['x-api-key', readerA]) },
        {
          weight: 2,
          arbitrary: fc
            .constantFrom(
              '',
              'pk_live_',
              `pk_live_${'A'.repeat(43)}`,
              keyA.slice(0, -1),
              ` ${keyA} `,
              keyA.toUpperCase(),
              'x'.repeat(201),
              `Bearer ${keyA}`,
              `${keyA}\t`,
              'é',
            )
            .map((v) => ['x-api-key', v]),
        },
        { weight: 1, arbitrary: fc.constant<string[]>(['x-api-key', keyA, 'x-api-key', keyA]) },
        { weight: 1, arbitrary: fc.constant<string[]>(['X-API-KEY', keyA, 'x-api-key', keyB]) },
      );
    };

    const otherHeaders = (): fc.Arbitrary<string[]> =>
      fc.oneof(
        { weight: 12, arbitrary: fc.constant<string[]>([]) },
        { weight: 2, arbitrary: fc.constantFrom('k1', 'k2', 'k3').map((k) => ['idempotency-key', k]) },
        { weight: 1, arbitrary: fc.constantFrom('', 'x'.repeat(256), 'é', ' ').map((k) => ['idempotency-key', k]) },
        { weight: 1, arbitrary: fc.constant<string[]>(['idempotency-key', 'k1', 'idempotency-key', 'k2']) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('', 'x'.repeat(500), '../../etc', 'a b', 'é').map((v) => ['x-request-id', v]),
        },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom('text/html', '*/*', 'application/xml', '', 'application/json;q=0')
            .map((v) => ['accept', v]),
        },
        { weight: 1, arbitrary: fc.constantFrom('gzip', 'br', 'identity', 'x').map((v) => ['content-encoding', v]) },
        { weight: 1, arbitrary: fc.constant<string[]>(['host', 'evil.example']) },
      );

    /** A whole request for one operation: path, query, headers and body drawn together. */
    const requestsFor = (route: RouteEntry, op: Operation): fc.Arbitrary<{ req: WireRequest; label: string }> => {
      const params = op.parameters ?? [];
      const pathNames = params.filter((p) => p.in === 'path').map((p) => p.name);
      const queryParams = params.filter((p) => p.in === 'query');
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      const validBody = bodySchema ? valueOf(doc, bodySchema, '', pools) : fc.constant({});

      const pathArb = fc
        .tuple(...pathNames.map((n) => pathParam(n, pools)))
        .map((values) => values.reduce((url, v, i) => url.replace(`:${pathNames[i]}`, v), route.url));
      const queryArb = fc
        .tuple(
          fc.tuple(
            ...queryParams.map((p) =>
              fc.option(
                queryValue(doc, p.name, p.schema, pools, nextTokens).map((v) => [p.name, v] as const),
                { freq: p.required ? 10 : 2 },
              ),
            ),
          ),
          fc.array(
            fc.tuple(
              fc.constantFrom(
                'limit',
                'nextToken',
                '__proto__',
                'constructor',
                'hasOwnProperty',
                'toString',
                'extra',
                'phone',
                'a[b]',
              ),
              anyString(0, 20),
            ),
            { maxLength: 2 },
          ),
          fc.constantFrom('', '', '', '', '&%ZZ=1', '&a=%E0%A4%A', '&&&', '&=', '&limit=1&limit=2', '#frag'),
        )
        .map(([known, extra, tail]) => {
          const pairs = [...known.filter((p) => p !== null), ...extra] as (readonly [string, string])[];
          const text = pairs.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&') + tail;
          return text === '' ? '' : `?${text}`;
        });
      const methodArb = fc.oneof(
        { weight: 30, arbitrary: fc.constant(route.method) },
        { weight: route.method === 'GET' ? 1 : 0, arbitrary: fc.constant('HEAD') },
        {
          weight: 1,
          arbitrary: fc.constantFrom('OPTIONS', 'PUT', 'PROPFIND', route.method === 'POST' ? 'PATCH' : 'POST'),
        },
      );
      return fc
        .record({
          method: methodArb,
          path: pathArb,
          query: queryArb,
          body: bodyCase(validBody, bodySchema, !!bodySchema),
          key: keyHeaders(),
          other: otherHeaders(),
          duplicateContentType: fc.oneof(
            { weight: 15, arbitrary: fc.constant(false) },
            { weight: 1, arbitrary: fc.constant(true) },
          ),
        })
        .map(({ method, path, query, body, key, other, duplicateContentType }) => {
          const headers = [...key, ...other];
          const sendsBody = body.text !== undefined && method !== 'HEAD';
          if (sendsBody && body.contentType !== null)
            headers.push('content-type', body.contentType ?? 'application/json');
          if (sendsBody && duplicateContentType) headers.push('content-type', 'text/plain');
          const req: WireRequest = {
            method,
            path: `${path}${query}`,
            headers,
            ...(sendsBody ? { body: body.text } : {}),
          };
          const label = `${body.label}; headers ${clip(JSON.stringify(headers.filter((_, i) => i % 2 === 0)), 120)}`;
          // fast-check prints a counterexample with this, not with the megabyte of body it may hold.
          return {
            req,
            label,
            [fc.toStringMethod]: () =>
              `${method} ${clip(req.path, 150)} [${label}] ${clip(String(req.body ?? ''), 200)}`,
          };
        });
    };

    it('fuzzes exactly the operations the document lists', () => {
      const documented = Object.entries(doc.paths)
        .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
        .sort();
      expect(operations.map((r) => `${r.method} ${docPath(r.url)}`).sort()).toEqual(documented);
    });

    it('refuses, with a 400 naming it, every field a client may not write, on every operation whose body is closed', async () => {
      const ts = ctx();
      const leadId = await createLead(ts.acme, { email: 'mass@example.com' });
      const before = (await ts.acme.get(`/leads/${leadId}`)).body;
      const leadsBefore = (await ts.acme.get('/leads?limit=1000')).body.leads.length;
      let checked = 0;
      for (const route of operations) {
        const op = doc.paths[docPath(route.url)]?.[route.method.toLowerCase()];
        const schema = op?.requestBody?.content['application/json']?.schema;
        if (!schema) continue;
        // Every body is closed (platform/http/closed-bodies.ts): a typo or a read-only field is never dropped in silence.
        expect({ route: `${route.method} ${route.url}`, closed: schema.additionalProperties }).toEqual({
          route: `${route.method} ${route.url}`,
          closed: false,
        });
        // Unsubscribe and resubscribe fix their 400 text: an unknown field is named before it.
        const contract = /\/(unsubscribe|resubscribe)$/.test(route.url)
          ? ': channels must include at least one of: sms, voice, email'
          : '';
        const path = route.url
          .replace(/^\/v1/, '')
          .replace(':leadId', leadId)
          .replace(':name', 'sales')
          .replace(':id', pools.ids.id![0]!);
        for (const field of forbiddenKeys.filter((k) => !(k in (schema.properties ?? {})))) {
          const valid =
            route.url === '/v1/inbound'
              ? { channel: 'sms', from: uniquePhone(), text: 'hi' }
              : sampleBody(route.method, route.url);
          const body = { ...(valid as object), [field]: field === 'subscriptions' ? { sms: 'subscribed' } : true };
          const res = await ts.acme.call(route.method, path, body);
          expect({
            route: `${route.method} ${route.url}`,
            field,
            status: res.status,
            message: messageOf(res),
          }).toEqual({
            route: `${route.method} ${route.url}`,
            field,
            status: 400,
            message: `${field} is not allowed${contract}`,
          });
          checked += 1;
        }
      }
      expect(checked).toBeGreaterThan(100);
      expect((await ts.acme.get(`/leads/${leadId}`)).body).toEqual(before);
      expect((await ts.acme.get('/leads?limit=1000')).body.leads.length).toBe(leadsBefore);
    });

    it('keeps keys named like Object.prototype members in additionalInfo as plain data, through every merge', async () => {
      const ts = ctx();
      const leadId = await createLead(ts.acme);
      const tricky = {
        constructor: { name: 'x' },
        prototype: { polluted: 'yes' },
        toString: 'not a function',
        hasOwnProperty: 1,
        valueOf: [1],
        __defineGetter__: true,
        isPrototypeOf: null,
      };
      const patched = await ts.acme.patch(`/leads/${leadId}`, { additionalInfo: tricky });
      expect(patched.status).toBe(200);
      // isPrototypeOf was null: a deletion of a key that was never there.
      const { isPrototypeOf: _deleted, ...kept } = tricky;
      expect(patched.body.additionalInfo).toEqual(kept);
      expect(
        (
          await ts.acme.post(`/leads/${leadId}/addContext`, {
            additionalInfo: { toString: null, valueOf: { deep: { constructor: 1 } } },
          })
        ).status,
      ).toBe(200);
      const { toString: _gone, ...rest } = kept;
      expect((await ts.acme.get(`/leads/${leadId}`)).body.additionalInfo).toEqual({
        ...rest,
        valueOf: { deep: { constructor: 1 } },
      });
      expect((await ts.acme.get(`/leads?limit=1000`)).status).toBe(200);
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(typeof ({} as object).toString).toBe('function');
    });

    it(
      'Twilio webhooks (form-encoded, signed): never a 500, a hang or an undocumented status',
      async () => {
        const ts = ctx();
        expect((await ts.acme.patch('/settings', { sendingNumber: SENDING_NUMBER })).status).toBe(200);
        const names = fc.oneof(
          fc.constantFrom(
            'From',
            'To',
            'Body',
            'MessageSid',
            'CallSid',
            'SpeechResult',
            'Direction',
            'MessageStatus',
            'CallStatus',
            'ErrorCode',
            'AccountSid',
            '__proto__',
            'constructor',
          ),
          anyString(1, 10),
        );
        const values = fc.oneof(
          fc.constantFrom(
            ...pools.phones,
            'STOP',
            'START',
            'HELP',
            'yes I am interested',
            'outbound-api',
            'inbound',
            'delivered',
            'failed',
            'SM0123',
            '',
          ),
          anyString(0, 60),
          fc.constant('x'.repeat(30_000)),
        );
        const request = fc.record({
          path: fc.constantFrom(
            '/v1/providers/twilio/sms',
            '/v1/providers/twilio/voice/gather',
            '/v1/providers/twilio/status',
          ),
          query: fc.constantFrom('', '', '?a=1', '?%ZZ'),
          params: fc.array(fc.tuple(names, values), { maxLength: 8 }),
          base: fc.record({
            From: fc.constantFrom(...pools.phones),
            To: fc.constantFrom(SENDING_NUMBER, ...pools.phones),
          }),
          signature: fc.constantFrom('right', 'right', 'right', 'none', 'wrong'),
          contentType: fc.constantFrom(
            'application/x-www-form-urlencoded',
            'application/x-www-form-urlencoded',
            'application/json',
            null,
            'text/plain',
          ),
        });
        await fc.assert(
          fc.asyncProperty(request, async ({ path, query, params, base, signature, contentType }) => {
            const pairs: [string, string][] = [['From', base.From], ['To', base.To], ...params];
            const body = new URLSearchParams(pairs).toString();
            const headers: string[] = [];
            if (contentType) headers.push('content-type', contentType);
            if (signature !== 'none') {
              const sig = twilioSignature(
                TWILIO_TOKEN,
                ts.config.publicUrl + path + query,
                signature === 'right' ? pairs : [['x', 'y']],
              );
              headers.push('x-twilio-signature', sig);
            }
            const res = await wire.send({ method: 'POST', path: path + query, headers, body });
            const label = `${path}${query} ${signature} ${contentType} ${clip(body, 200)} -> ${res.status} ${clip(res.text)}`;
            if (![200, 400, 403, 404, 413, 415].includes(res.status) || res.ms > REQUEST_MS) throw new Error(label);
            if (res.status === 200 && !/^<\?xml|^<Response/.test(res.text)) throw new Error(`not TwiML: ${label}`);
            if (res.status !== 200 && !/^\{"message":/.test(res.text)) throw new Error(`not {message}: ${label}`);
          }),
          { seed: SEED - 1, numRuns: RUNS * 3 },
        );
      },
      timeoutFor(RUNS * 3),
    );

    it(
      'unsubscribe links (no key, signed token): never a 500, a hang or an undocumented status',
      async () => {
        const ts = ctx();
        const key = await unsubscribeKey(ts.server.deps);
        const organizationId = fixtures.organizationA;
        const token = (leadId: string, channel: 'email' | 'sms') =>
          issueUnsubscribeToken(key, { organizationId, leadId, channel, issuedAt: new Date() });
        const genuine = [
          token(fixtures.leadEmailOnly, 'email'),
          token(fixtures.leadA, 'email'),
          token(fixtures.leadA, 'sms'),
          token(randomUUID(), 'email'),
          token(fixtures.leadB, 'email'),
        ];
        const tokens = fc.oneof(
          fc.constantFrom(...genuine),
          fc
            .constantFrom(...genuine)
            .chain((t) => fc.nat(t.length - 1).map((i) => t.slice(0, i) + (t[i] === 'A' ? 'B' : 'A') + t.slice(i + 1))),
          fc.constantFrom('', 'x', 'A'.repeat(96), 'A'.repeat(101), `${genuine[0]}=`, `${genuine[0]}%00`, '..%2F..'),
          anyString(1, 40).map(pct),
        );
        const request = fc.record({
          method: fc.constantFrom('GET', 'POST', 'POST'),
          token: tokens,
          body: fc.constantFrom<[string | null, string]>(
            ['application/x-www-form-urlencoded', 'List-Unsubscribe=One-Click'],
            [null, ''],
            ['application/json', '{"a":1}'],
            ['application/json', '{'],
            ['multipart/form-data; boundary=x', '--x--'],
            ['text/plain', 'x'.repeat(5000)],
            ['application/x-www-form-urlencoded', '__proto__=1&constructor=2'],
          ),
          accept: fc.constantFrom('', 'text/html', 'application/json'),
        });
        await fc.assert(
          fc.asyncProperty(request, async ({ method, token: t, body: [contentType, body], accept }) => {
            const headers: string[] = [];
            if (accept) headers.push('accept', accept);
            if (method === 'POST' && contentType) headers.push('content-type', contentType);
            const res = await wire.send({
              method,
              path: `/v1/unsubscribe/${t}`,
              headers,
              ...(method === 'POST' && body ? { body } : {}),
            });
            const label = `${method} ${clip(t, 120)} ${contentType} -> ${res.status} ${clip(res.text)}`;
            if (![200, 400, 404, 413, 414, 415].includes(res.status) || res.ms > REQUEST_MS) throw new Error(label);
            if (res.status !== 200 && !/^\{"message":/.test(res.text)) throw new Error(`not {message}: ${label}`);
          }),
          { seed: SEED - 2, numRuns: RUNS * 2 },
        );
      },
      timeoutFor(RUNS * 2),
    );

    it('answers bytes no client library would send without a 5xx or a hang, and keeps serving', async () => {
      const ts = ctx();
      const port = Number(new URL(ts.url).port);
      const key = fixtures.keyA;
      const cases: (string | [string, 'half-close'])[] = [
        'GARBAGE\r\n\r\n',
        'GET /v1/leads HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
        `POST /v1/leads/create HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n`,
        `POST /v1/leads/create HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        [
          `POST /v1/leads/create HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"firstName":`,
          'half-close',
        ],
        `POST /v1/leads/create HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024 * 50}\r\n\r\n{`,
        `GET /v1/leads HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        `GET /v1/leads HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\n${Array.from({ length: 3000 }, (_, i) => `X-H${i}: v`).join('\r\n')}\r\n\r\n`,
        `GET /v1/leads?${'a=1&'.repeat(6000)} HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\n\r\n`,
        `GET /v1/leads/a b HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\n\r\n`,
        `GET /v1/leads HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\u0000\r\n\r\n`,
        `GET /v1/leads HTTP/1.1\r\nHost: x\r\nx-api-key:${key}\r\n x-folded: yes\r\n\r\n`,
        `POST /v1/leads/create HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}`,
        `GET /v1/../../etc/passwd HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\n\r\n`,
        `DELETE /v1/leads HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\n\r\n`,
      ];
      for (const item of cases) {
        const [bytes, halfClose] = typeof item === 'string' ? [item, false] : [item[0], true];
        const { status, text } = await rawExchange(port, bytes, REQUEST_MS, halfClose);
        const label = `${JSON.stringify(bytes.slice(0, 100))} -> ${status} ${clip(text, 200)}`;
        expect(status === 'closed' || (status >= 400 && status < 500), label).toBe(true);
      }
      // The absolute form of a request target is legal HTTP (RFC 9112, 3.2.2): served, and the host in it changes nothing.
      const absolute = await rawExchange(
        port,
        `GET http://evil.example/v1/leads?limit=1 HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\n\r\n`,
        REQUEST_MS,
      );
      expect(absolute.status).toBe(200);
      expect(
        (await rawExchange(port, `GET /v1/leads?limit=1 HTTP/1.0\r\nx-api-key: ${key}\r\n\r\n`, REQUEST_MS)).status,
      ).toBe(200);
      const still = await ts.acme.get('/leads?limit=1');
      expect(still.status).toBe(200);
    });

    operations.forEach((route, index) => {
      it(
        `${route.method} ${route.url}: documented answers only`,
        async () => {
          const template = docPath(route.url);
          const op = doc.paths[template]?.[route.method.toLowerCase()];
          expect(op, `${route.method} ${template} is not in the document`).toBeDefined();
          await fc.assert(
            fc.asyncProperty(requestsFor(route, op!), async ({ req, label }) => {
              const method = ['GET', 'POST', 'PATCH', 'DELETE', 'HEAD'].includes(req.method)
                ? route.method
                : req.method;
              if (method !== route.method) {
                // Another method on this path: the router's 404 (or its 400 / 414 for a URL it cannot read), in the contract's shape.
                const res = await wire.send(req);
                count(`${req.method} *`, res.status);
                const expected =
                  res.status === 404
                    ? /^\{"message":"Not Found"/
                    : res.status === 400
                      ? /^\{"message":"Bad Request: the URL is not valid"/
                      : /^\{"message":"URI Too Long"/;
                if (![400, 404, 414].includes(res.status) || !expected.test(res.text))
                  throw new Error(`${req.method} ${req.path} -> ${res.status} ${clip(res.text)}`);
                return;
              }
              const res = await exchange(op!, route.method, template, req, label);
              count(`${route.method} ${template}`, res.status);
              if (process.env.FUZZ_STATS === '2' && res.status === 400 && label.startsWith('valid-ish'))
                console.log(`${route.method} ${template} ${clip(res.text, 150)}`);
            }),
            { seed: SEED + index, numRuns: RUNS },
          );
          // The same kind of requests all at once: races between them (two writes of one row, a delete under
          // a read, one Idempotency-Key twice) must end in documented answers too.
          const burst = fc.sample(requestsFor(route, op!), { seed: SEED + index + 1_000_000, numRuns: BURST });
          await Promise.all(
            burst.map(async ({ req, label }) => {
              if (['GET', 'POST', 'PATCH', 'DELETE'].includes(req.method) && req.method === route.method)
                await exchange(op!, route.method, template, req, `burst: ${label}`);
            }),
          );
          expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
          if (process.env.FUZZ_STATS)
            console.log(`after ${route.method} ${route.url}: live heap ${Math.round(liveHeap() / 1e6)} MB`);
        },
        timeoutFor(RUNS),
      );
    });

    it('grew the process by a bounded amount and left every prototype alone', async () => {
      const ts = ctx();
      clearInterval(sampler);
      const heapGrew = liveHeap() - heapBefore;
      expect(heapGrew, `the live heap grew by ${Math.round(heapGrew / 1e6)} MB`).toBeLessThan(HEAP_GROWTH_LIMIT);
      const rssGrew = rssPeak - rssBefore;
      expect(rssGrew, `resident memory peaked ${Math.round(rssGrew / 1e6)} MB above its start`).toBeLessThan(
        RSS_GROWTH_LIMIT,
      );
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
      for (const proto of [Object.prototype, Array.prototype, Function.prototype])
        expect((proto as Record<string, unknown>).polluted).toBeUndefined();
      // The fixtures are still readable and well-formed after all of it.
      const lead = await ts.acme.get(`/leads/${fixtures.leadA}`);
      expect([200, 404]).toContain(lead.status);
      expect((await ts.raw('/readyz')).status).toBe(200);
    });
  },
  {
    // No worker: nothing the fuzzer registers (webhook URLs, messages) is ever contacted.
    PARLEY_WORKER: 'false',
    // Webhook URLs are checked without DNS look-ups (traffic stays on 127.0.0.1).
    PARLEY_ALLOW_PRIVATE_WEBHOOK_URLS: 'true',
    TWILIO_ACCOUNT_SID: 'ACfuzz',
    TWILIO_AUTH_TOKEN: TWILIO_TOKEN,
    TWILIO_API_BASE_URL: 'http://127.0.0.1:9',
    PARLEY_SIGNING_SECRET: SIGNING_SECRET,
  },
);
