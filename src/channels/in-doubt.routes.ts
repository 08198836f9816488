import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Message } from '../messages/messages.schemas.js';
import { toMessageView } from '../messages/messages.service.js';
import type { Deps } from '../platform/deps.js';
import { withErrors } from '../platform/http/schemas.js';
import { ResolveMessageBody, ResolveMessageParams } from './in-doubt.schemas.js';
import { resolveInDoubt } from './in-doubt.js';

export const inDoubtRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/leads/:leadId/messages/:id/resolve',
      {
        schema: {
          tags: ['messages'],
          summary:
            'Resolve a message left in doubt (status in_doubt, statusCode NEEDS_OPERATOR): record it sent, or send it once more',
          params: ResolveMessageParams,
          body: ResolveMessageBody,
          response: withErrors({ 200: Type.Ref(Message) }, 'not_in_doubt'),
        },
      },
      async (req) =>
        toMessageView(
          await resolveInDoubt(deps, req.auth.organizationId, req.params.leadId, req.params.id, req.body.outcome),
        ),
    );
  };
