import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { searchConversations } from '../leads/lead-search.service.js';
import { ListMessagesQuery } from '../messages/messages.schemas.js';
import type { Deps } from '../platform/deps.js';
import { ErrorBody } from '../platform/http/schemas.js';
import { conversationMessages } from './inbox.service.js';
import { ConsoleMessagesReply, InboxQuery, InboxReply, LeadIdParams } from './console.schemas.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/**
 * What the inbox and a lead's conversation read (docs/console.md). /v1 keeps
 * the shapes its clients know (an email's subject folded into the text, no
 * count); the console gets the subject apart and the true number of conversations.
 */
export const consoleInboxRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/inbox',
      { schema: { hide: true, querystring: InboxQuery, response: { 200: InboxReply, ...errors } } },
      async (req) => {
        const { channel, ...q } = req.query;
        return searchConversations(deps, req.consoleSession.organizationId, { ...q, lastChannel: channel });
      },
    );

    app.get(
      '/leads/:leadId/messages',
      {
        schema: {
          hide: true,
          params: LeadIdParams,
          querystring: ListMessagesQuery,
          response: { 200: ConsoleMessagesReply, ...errors },
        },
      },
      async (req) => conversationMessages(deps, req.consoleSession.organizationId, req.params.leadId, req.query),
    );
  };
