import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../platform/deps.js';
import { ErrorBody } from '../platform/http/schemas.js';
import { Rep } from './handoffs.schemas.js';
import { getRep, updateRep } from './handoffs.service.js';

const AwayBody = Type.Object({ isAway: Type.Boolean() }, { additionalProperties: false });
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/**
 * The signed-in user's own rep fields in the console: every role may read
 * them and flip their own away switch (PATCH /v1/users/{id}, which sets
 * anyone's, is for admins: settings:write).
 */
export const consoleRepRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/me/rep', { schema: { hide: true, response: { 200: Type.Ref(Rep), ...errors } } }, async (req) =>
      getRep(deps, req.consoleSession.organizationId, req.consoleSession.userId),
    );

    app.put(
      '/me/away',
      { schema: { hide: true, body: AwayBody, response: { 200: Type.Ref(Rep), ...errors } } },
      async (req) =>
        updateRep(deps, req.consoleSession.organizationId, req.consoleSession.userId, { isAway: req.body.isAway }),
    );
  };
