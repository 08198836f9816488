import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { LeadIdParams, withErrors } from '../platform/http/schemas.js';
import { ListEventsQuery, ListEventsReply } from './timeline.schemas.js';
import { listLeadEvents } from './timeline.service.js';

export const timelineRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/leads/:leadId/events',
      {
        schema: {
          tags: ['leads'],
          summary:
            "A lead's timeline: messages, calls, emails, the agent's tool calls, context notes and blocked sends, ordered by updatedAt ascending",
          params: LeadIdParams,
          querystring: ListEventsQuery,
          response: withErrors(
            { 200: ListEventsReply },
            'since_required',
            'invalid_since',
            'invalid_types',
            'invalid_cursor',
          ),
        },
      },
      async (req) => listLeadEvents(deps, req.auth.organizationId, req.params.leadId, req.query),
    );
  };
