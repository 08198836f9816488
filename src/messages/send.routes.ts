import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { LeadIdParams, withErrors } from '../platform/http/schemas.js';
import { SendMessageBody, SendMessageReply } from './send.schemas.js';
import { sendMessage } from './send.service.js';

export const sendRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/leads/:leadId/sendMessage',
      {
        schema: {
          tags: ['messages'],
          summary:
            'Send a message to a lead now, at scheduledTime, or when contact hours open (through the compliance gate)',
          params: LeadIdParams,
          body: SendMessageBody,
          response: withErrors({ 200: SendMessageReply }, 'channel_unavailable', 'invalid_schedule'),
        },
      },
      async (req) => {
        const sent = await sendMessage(deps, req.auth.organizationId, req.params.leadId, req.body);
        // The hosted service's text for an accepted send; a send the gate refused outright says so.
        return {
          message: sent.status === 'blocked' ? 'Message blocked by the compliance gate.' : 'Message sent successfully.',
          ...sent,
        };
      },
    );
  };
