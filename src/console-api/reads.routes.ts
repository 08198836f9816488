import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { ErrorBody } from '../platform/http/schemas.js';
import { LeadIdParams, ReadsQuery, ReadsReply } from './console.schemas.js';
import { markLeadRead, readState } from './reads.service.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/** Per-user read markers: which conversations have news since this user last looked. */
export const consoleReadRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/reads',
      { schema: { hide: true, querystring: ReadsQuery, response: { 200: ReadsReply, ...errors } } },
      async (req) => ({
        reads: await readState(deps, req.consoleSession, req.query.leadIds),
      }),
    );

    app.put(
      '/reads/:leadId',
      { schema: { hide: true, params: LeadIdParams, response: { 204: { type: 'null' }, ...errors } } },
      async (req, reply) => {
        await markLeadRead(deps, req.consoleSession, req.params.leadId);
        return reply.code(204).send();
      },
    );
  };
