import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { LeadIdParams, withErrors } from '../platform/http/schemas.js';
import { ChannelsBody, ChannelsReply, INVALID_CHANNELS } from './subscriptions.schemas.js';
import { resubscribe, unsubscribe } from './subscriptions.service.js';
import { toChannels } from '../lead-records/channels.js';

export const subscriptionRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const schema = (summary: string) => ({
      tags: ['subscriptions'],
      summary,
      params: LeadIdParams,
      body: ChannelsBody,
      response: withErrors({ 200: ChannelsReply }, 'keyword_opt_out', 'channel_unavailable'),
    });
    // Any invalid body (bad JSON, not an object, bad channels) answers the contract's one text.
    const config = { badRequestMessage: INVALID_CHANNELS };

    app.post(
      '/leads/:leadId/unsubscribe',
      { schema: schema('Unsubscribe a lead from channels'), config },
      async (req) => {
        const channels = await unsubscribe(
          deps,
          req.auth.organizationId,
          req.params.leadId,
          toChannels(req.body?.channels),
          { actor: `key:${req.auth.keyId}` },
        );
        return { message: 'Lead unsubscribed successfully.', channels };
      },
    );

    app.post(
      '/leads/:leadId/resubscribe',
      {
        schema: schema(
          'Resubscribe a lead to channels (no body: every channel it can receive) and turn the AI back on for it',
        ),
        config,
      },
      async (req) => {
        const channels = await resubscribe(
          deps,
          req.auth.organizationId,
          req.params.leadId,
          toChannels(req.body?.channels),
          { actor: `key:${req.auth.keyId}` },
        );
        return { message: 'Lead resubscribed successfully.', channels };
      },
    );
  };
