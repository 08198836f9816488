import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { LeadIdParams, withErrors } from '../platform/http/schemas.js';
import { SwitchProfileBody, SwitchProfileReply } from './switch.schemas.js';
import { switchCustomerProfile } from './switch.service.js';

export const switchProfileRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/leads/:leadId/switchCustomerProfile',
      {
        schema: {
          tags: ['leads'],
          summary: "Switch a lead's customer profile; the reply echoes the effective message delay",
          params: LeadIdParams,
          body: SwitchProfileBody,
          response: withErrors({ 200: SwitchProfileReply }),
        },
      },
      async (req) => {
        const { sendMessage, messageDelayHours, messageDelayMins, opening } = await switchCustomerProfile(
          deps,
          req.auth.organizationId,
          req.params.leadId,
          req.body,
        );
        // The hosted service's four fields; `opening` (Parley's) only when a message was asked for.
        return {
          message: 'Switched profile successfully.',
          sendMessage,
          messageDelayHours,
          messageDelayMins,
          ...(opening ? { opening } : {}),
        };
      },
    );
  };
