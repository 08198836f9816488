import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { MessageBody, withErrors } from '../platform/http/schemas.js';
import * as deliveries from './webhooks.deliveries.js';
import {
  CreateWebhookBody,
  DeliveryParams,
  ListDeliveriesQuery,
  ListDeliveriesReply,
  ListWebhooksReply,
  ReplayReply,
  UpdateWebhookBody,
  WebhookDeliveryWithBody,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  WebhookIdParams,
} from './webhooks.schemas.js';
import * as webhooks from './webhooks.service.js';

export const webhookRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['webhooks'];

    app.post(
      '/webhooks',
      {
        schema: {
          tags,
          summary: 'Register a webhook endpoint; the answer carries its signing secret, shown only here',
          body: CreateWebhookBody,
          response: withErrors({ 201: WebhookEndpointWithSecret }, 'unsafe_url'),
        },
      },
      async (req, reply) =>
        reply.code(201).send(await webhooks.createEndpoint(deps, req.auth.organizationId, req.body)),
    );

    app.get(
      '/webhooks',
      {
        schema: {
          tags,
          summary: 'List webhook endpoints, oldest first',
          response: withErrors({ 200: ListWebhooksReply }),
        },
      },
      async (req) => ({ webhooks: await webhooks.listEndpoints(deps, req.auth.organizationId) }),
    );

    app.get(
      '/webhooks/:id',
      {
        schema: {
          tags,
          summary: 'Get a webhook endpoint (without its secret)',
          params: WebhookIdParams,
          response: withErrors({ 200: WebhookEndpoint }),
        },
      },
      async (req) => webhooks.getEndpoint(deps, req.auth.organizationId, req.params.id),
    );

    app.patch(
      '/webhooks/:id',
      {
        schema: {
          tags,
          summary: 'Change url, events (null: every type), description or enabled; re-enabling clears disabledReason',
          params: WebhookIdParams,
          body: UpdateWebhookBody,
          response: withErrors({ 200: WebhookEndpoint }, 'unsafe_url'),
        },
      },
      async (req) => webhooks.updateEndpoint(deps, req.auth.organizationId, req.params.id, req.body),
    );

    app.delete(
      '/webhooks/:id',
      {
        schema: {
          tags,
          summary: 'Delete a webhook endpoint and its deliveries',
          params: WebhookIdParams,
          response: withErrors({ 200: MessageBody }),
        },
      },
      async (req) => {
        await webhooks.deleteEndpoint(deps, req.auth.organizationId, req.params.id);
        return { message: 'Webhook endpoint deleted successfully.' };
      },
    );

    app.post(
      '/webhooks/:id/rotateSecret',
      {
        schema: {
          tags,
          summary: 'Replace the signing secret; the old one stops working at once',
          params: WebhookIdParams,
          response: withErrors({ 200: WebhookEndpointWithSecret }),
        },
      },
      async (req) => webhooks.rotateSecret(deps, req.auth.organizationId, req.params.id),
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        schema: {
          tags,
          summary: 'List delivery attempts of an endpoint, newest first',
          params: WebhookIdParams,
          querystring: ListDeliveriesQuery,
          response: withErrors({ 200: ListDeliveriesReply }, 'invalid_cursor'),
        },
      },
      async (req) => deliveries.listDeliveries(deps, req.auth.organizationId, req.params.id, req.query),
    );

    app.get(
      '/webhooks/:id/deliveries/:deliveryId',
      {
        schema: {
          tags,
          summary: 'Get a delivery with the body its attempts send',
          params: DeliveryParams,
          response: withErrors({ 200: WebhookDeliveryWithBody }),
        },
      },
      async (req) => deliveries.getDelivery(deps, req.auth.organizationId, req.params.id, req.params.deliveryId),
    );

    app.post(
      '/webhooks/:id/deliveries/:deliveryId/replay',
      {
        schema: {
          tags,
          summary: 'Queue the event of a delivery again as a new delivery; 409 while the endpoint is disabled',
          params: DeliveryParams,
          response: withErrors({ 202: ReplayReply }, 'endpoint_disabled'),
        },
      },
      async (req, reply) => {
        const deliveryId = await deliveries.replayDelivery(
          deps,
          req.auth.organizationId,
          req.params.id,
          req.params.deliveryId,
        );
        return reply.code(202).send({ message: 'Delivery queued for replay.', deliveryId });
      },
    );
  };
