import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { LeadIdParams, withErrors } from '../platform/http/schemas.js';
import { ListMessagesQuery, ListMessagesReply } from './messages.schemas.js';
import { listMessages } from './messages.service.js';

export const messageRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/leads/:leadId/messages',
      {
        schema: {
          tags: ['messages'],
          summary: "A lead's messages, oldest first",
          params: LeadIdParams,
          querystring: ListMessagesQuery,
          response: withErrors({ 200: ListMessagesReply }, 'invalid_cursor'),
        },
      },
      async (req) => listMessages(deps, req.auth.organizationId, req.params.leadId, req.query),
    );
  };
