import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../platform/deps.js';
import { withErrors } from '../platform/http/schemas.js';
import { CampaignWithCounts, CreateCampaignBody, ListCampaignsQuery, ListCampaignsReply } from './campaigns.schemas.js';
import * as campaigns from './campaigns.service.js';

const CampaignIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const campaignRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['campaigns'];

    app.post(
      '/campaigns',
      {
        schema: {
          tags,
          summary:
            "Create a campaign: enrolls the leads the filter selects now (a snapshot) and sends them the profile's opening, at most dailyCap a day",
          body: CreateCampaignBody,
          response: withErrors({ 201: CampaignWithCounts }, 'invalid_date', 'invalid_filter', 'invalid_schedule'),
        },
      },
      async (req, reply) =>
        reply.code(201).send(await campaigns.createCampaign(deps, req.auth.organizationId, req.body)),
    );

    app.get(
      '/campaigns',
      {
        schema: {
          tags,
          summary: 'List campaigns, oldest first (without counts)',
          querystring: ListCampaignsQuery,
          response: withErrors({ 200: ListCampaignsReply }, 'invalid_cursor'),
        },
      },
      async (req) => campaigns.listCampaigns(deps, req.auth.organizationId, req.query),
    );

    app.get(
      '/campaigns/:id',
      {
        schema: {
          tags,
          summary: 'A campaign, its state and its counts',
          params: CampaignIdParams,
          response: withErrors({ 200: CampaignWithCounts }),
        },
      },
      async (req) => campaigns.getCampaign(deps, req.auth.organizationId, req.params.id),
    );

    app.post(
      '/campaigns/:id/pause',
      {
        schema: {
          tags,
          summary: 'Pause a scheduled or running campaign; 409 otherwise',
          params: CampaignIdParams,
          response: withErrors({ 200: CampaignWithCounts }, 'invalid_campaign_transition'),
        },
      },
      async (req) => campaigns.pauseCampaign(deps, req.auth.organizationId, req.params.id),
    );

    app.post(
      '/campaigns/:id/resume',
      {
        schema: {
          tags,
          summary: 'Resume a paused campaign; 409 otherwise',
          params: CampaignIdParams,
          response: withErrors({ 200: CampaignWithCounts }, 'invalid_campaign_transition'),
        },
      },
      async (req) => campaigns.resumeCampaign(deps, req.auth.organizationId, req.params.id),
    );

    app.post(
      '/campaigns/:id/cancel',
      {
        schema: {
          tags,
          summary: 'Cancel a campaign for good; 409 when it is completed or cancelled',
          params: CampaignIdParams,
          response: withErrors({ 200: CampaignWithCounts }, 'invalid_campaign_transition'),
        },
      },
      async (req) => campaigns.cancelCampaign(deps, req.auth.organizationId, req.params.id),
    );
  };
