import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { LeadIdParams, MessageBody, withErrors } from '../platform/http/schemas.js';
import { AddContextBody, ListNotesReply } from './context.schemas.js';
import { addContext, listContext } from './context.service.js';

export const contextRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['leads'];

    app.post(
      '/leads/:leadId/addContext',
      {
        schema: {
          tags,
          summary: 'Add context notes, additionalInfo and/or a command for the AI (at least one)',
          params: LeadIdParams,
          body: AddContextBody,
          response: withErrors({ 200: MessageBody }),
        },
      },
      async (req) => {
        await addContext(deps, req.auth.organizationId, req.params.leadId, req.body);
        return { message: 'Success' };
      },
    );

    app.get(
      '/leads/:leadId/context',
      {
        schema: {
          tags,
          summary: "A lead's context notes and commands, oldest first",
          params: LeadIdParams,
          response: withErrors({ 200: ListNotesReply }),
        },
      },
      async (req) => ({ notes: await listContext(deps, req.auth.organizationId, req.params.leadId) }),
    );
  };
