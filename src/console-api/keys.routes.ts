import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { ErrorBody } from '../platform/http/schemas.js';
import { CreateKeyBody, CreateKeyReply, KeyPrefixParams, KeysReply } from './console.schemas.js';
import { createKey, keysOfOrganization, revokeKeyOf } from './keys.service.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const config = { adminOnly: true };

/** The organization's API keys (admins only): the console's `parley keys`. */
export const consoleKeyRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/keys', { config, schema: { hide: true, response: { 200: KeysReply, ...errors } } }, async (req) => ({
      keys: await keysOfOrganization(deps, req.consoleSession.organizationId),
    }));

    app.post(
      '/keys',
      { config, schema: { hide: true, body: CreateKeyBody, response: { 201: CreateKeyReply, ...errors } } },
      async (req, reply) =>
        reply.code(201).send(await createKey(deps, req.consoleSession.organizationId, req.body.name, req.body.scopes)),
    );

    app.delete(
      '/keys/:prefix',
      { config, schema: { hide: true, params: KeyPrefixParams, response: { 204: { type: 'null' }, ...errors } } },
      async (req, reply) => {
        await revokeKeyOf(deps, req.consoleSession.organizationId, req.params.prefix);
        return reply.code(204).send();
      },
    );
  };
