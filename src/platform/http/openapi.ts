import swagger from '@fastify/swagger';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema } from 'fastify';
import { ErrorBody } from './schemas.js';

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
  return { ...schema, response: { ...response, ...added } };
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
        description: 'Lead engagement: leads, conversations, opt-outs, Do Not Contact and signed webhooks. Every error body is {"message": string}.',
      },
      servers: [{ url: '/v1' }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ apiKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    transform: ({ schema, url, route }) => ({
      schema: withPlatformAnswers(schema, url, [route.method].flat()),
      url: url.replace(/^\/v1/, ''),
    }),
  });
}

export function registerOpenApiRoute(app: FastifyInstance): void {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
