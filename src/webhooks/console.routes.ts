import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../platform/deps.js';
import { ErrorBody } from '../platform/http/schemas.js';
import { deliveryAnswers } from './webhooks.deliveries.js';
import { DeliveryParams } from './webhooks.schemas.js';

export const AnswersReply = Type.Object({
  answers: Type.Array(
    Type.Object({
      at: Type.String(),
      statusCode: Type.Union([Type.Integer(), Type.Null()]),
      error: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

/**
 * For the console's webhooks page (admins), under /console/api: each attempt's
 * answer of one delivery. /v1's delivery keeps the shape its clients know (the
 * last answer only).
 */
export const consoleWebhookRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/webhooks/:id/deliveries/:deliveryId/answers',
      {
        config: { adminOnly: true },
        schema: { hide: true, params: DeliveryParams, response: { 200: AnswersReply, ...errors } },
      },
      async (req) => ({
        answers: await deliveryAnswers(deps, req.consoleSession.organizationId, req.params.id, req.params.deliveryId),
      }),
    );
  };
