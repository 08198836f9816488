import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { ERRORS, type ErrorCode, GENERIC_ERRORS } from '../error-catalogue.js';
import { operationOf } from './operations.js';
import { declaredErrors, ErrorBody } from './schemas.js';

/** Where the browsable API reference is served: outside /v1, the one documented exception to "anything else is 404". */
export const API_REFERENCE_PATH = '/docs';
export const OPENAPI_JSON_PATH = '/v1/openapi.json';

/**
 * Answers the platform gives before or around a route's own handler, added to
 * every operation they can reach so that the document lists every status a
 * client can meet: 414 when a path parameter is longer than the router takes,
 * and on POST the Idempotency-Key answers (409 still in progress, 422 reused
 * with another request).
 */
function withPlatformAnswers(schema: FastifySchema, url: string, methods: string[]): FastifySchema {
  const response = schema?.response as Record<string, unknown> | undefined;
  if (!response) return schema;
  const extra: string[] = [];
  if (url.includes(':')) extra.push('414');
  if (methods.includes('POST')) extra.push('409', '422');
  const added = Object.fromEntries(extra.filter((s) => !(s in response)).map((s) => [s, Type.Ref(ErrorBody)]));
  return withErrorCodes({ ...schema, response: { ...response, ...added } }, errorCodesOf(response, url, methods));
}

/** The codes an operation can answer: its own (withErrors), the platform's around it, and those of any route. */
function errorCodesOf(response: object, url: string, methods: string[]): ErrorCode[] {
  const codes = new Set<ErrorCode>([...GENERIC_ERRORS, ...declaredErrors(response)]);
  if (url.includes(':')) codes.add('uri_too_long');
  if (methods.includes('POST')) {
    for (const c of ['invalid_idempotency_key', 'idempotency_in_progress', 'idempotency_key_reused'] as const)
      codes.add(c);
  }
  return [...codes].sort();
}

/**
 * The operation lists its codes in `x-error-codes` (for a client to switch on)
 * and each error response says which of them carry its status (for a reader).
 */
function withErrorCodes(schema: FastifySchema, codes: ErrorCode[]): FastifySchema {
  const response = { ...(schema.response as Record<string, unknown>) };
  for (const status of Object.keys(response)) {
    const mine = codes.filter((c) => String(ERRORS[c].status) === status);
    if (mine.length > 0) response[status] = { ...Type.Ref(ErrorBody), description: `code: ${mine.join(', ')}` };
  }
  return { ...schema, response, 'x-error-codes': codes } as FastifySchema;
}

/**
 * The OpenAPI 3.1 document is generated from the same route schemas that
 * validate requests, so it cannot drift from what the server enforces.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: '1.0.0',
        description:
          'Lead engagement: leads, conversations, opt-outs, Do Not Contact and signed webhooks. Every error body is {"message": string}; ' +
          "a validation error names the field and what it accepts. Each operation's x-parley-origin says whether it is the hosted " +
          "service's (public reference: docs.apten.ai; same request and answer, Parley may add fields) or Parley's own.",
      },
      servers: [{ url: '/v1' }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ apiKey: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transform: ({ schema, url, route }) => {
      const methods = [route.method].flat();
      const path = url.replace(/^\/v1/, '');
      // biome-ignore lint/style/noNonNullAssertion: a route has at least one method
      return { schema: withOperation(withPlatformAnswers(schema, url, methods), methods[0]!, path), url: path };
    },
  });
  // The reference page, its scripts and styles are served from the package (no CDN): it works offline.
  await app.register(swaggerUi, {
    routePrefix: API_REFERENCE_PATH,
    // Only this server's own assets, over whatever scheme it is reached on (no upgrade to https: a LAN install is plain http).
    staticCSP:
      "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; frame-ancestors 'self'; img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self'",
    theme: { title: 'Parley API reference' },
    uiConfig: {
      deepLinking: true,
      docExpansion: 'list',
      defaultModelsExpandDepth: 0,
      displayOperationId: true,
      tryItOutEnabled: false,
      validatorUrl: null,
    },
  });
}

/**
 * Every operation gets its operationId and says whose it is: the hosted
 * service's (same path, fields and answers as its public reference) or
 * Parley's own addition. A route that names its own operationId keeps it.
 */
function withOperation(schema: FastifySchema, method: string, path: string): FastifySchema {
  if (!schema || (schema as { hide?: boolean }).hide) return schema;
  const op = operationOf(method, path);
  const own = schema as FastifySchema & { operationId?: string; description?: string };
  const note =
    op.origin === 'hosted'
      ? 'Origin: the hosted service (docs.apten.ai), same request and answer; Parley may add fields.'
      : "Origin: Parley (an addition, not in the hosted service's API).";
  return {
    ...schema,
    operationId: own.operationId ?? op.operationId,
    description: own.description ? `${own.description}\n\n${note}` : note,
    'x-parley-origin': op.origin,
  } as FastifySchema;
}

export function registerOpenApiRoute(app: FastifyInstance): void {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
