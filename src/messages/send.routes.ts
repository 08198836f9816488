import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { withErrors } from '../platform/http/schemas.js';
import { LeadIdParams } from '../leads/leads.schemas.js';
import { SendMessageBody, SendMessageReply } from './send.schemas.js';
import { sendMessage } from './send.service.js';

export const sendRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/leads/:leadId/sendMessage', {
    schema: {
      tags: ['messages'],
      summary: 'Send a message to a lead now or at scheduledTime (through the compliance gate)',
      params: LeadIdParams,
      body: SendMessageBody,
      response: withErrors({ 200: SendMessageReply }),
    },
  }, async (req) => {
    const sent = await sendMessage(deps, req.auth.organizationId, req.params.leadId, req.body);
    return { message: sent.status === 'blocked' ? 'Message blocked by the compliance gate.' : 'Message queued successfully.', ...sent };
  });
};
