import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { MessageBody, withErrors } from '../platform/http/schemas.js';
import {
  CreateSendingNumberBody,
  ListSendingNumbersReply,
  SendingNumber,
  SendingNumberParams,
  UpdateSendingNumberBody,
} from './sending-numbers.schemas.js';
import * as numbers from './sending-numbers.service.js';

export const sendingNumberRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['sendingNumbers'];

    app.post(
      '/sendingNumbers',
      {
        schema: {
          tags,
          summary:
            'Add a number to the pool SMS (or calls) go out from; paced at its rate, unique across organizations',
          body: CreateSendingNumberBody,
          response: withErrors(
            { 201: SendingNumber },
            'invalid_phone',
            'sending_number_taken',
            'sending_number_exists',
          ),
        },
      },
      async (req, reply) =>
        reply.code(201).send(await numbers.createSendingNumber(deps, req.auth.organizationId, req.body)),
    );

    app.get(
      '/sendingNumbers',
      {
        schema: {
          tags,
          summary: 'List the pool, oldest first',
          response: withErrors({ 200: ListSendingNumbersReply }),
        },
      },
      async (req) => ({ sendingNumbers: await numbers.listSendingNumbers(deps, req.auth.organizationId) }),
    );

    app.get(
      '/sendingNumbers/:id',
      {
        schema: {
          tags,
          summary: 'Get one pool number',
          params: SendingNumberParams,
          response: withErrors({ 200: SendingNumber }),
        },
      },
      async (req) => numbers.getSendingNumber(deps, req.auth.organizationId, req.params.id),
    );

    app.patch(
      '/sendingNumbers/:id',
      {
        schema: {
          tags,
          summary: 'Change kind, ratePerSecond or dailyCap (null: none); applies from the next send',
          params: SendingNumberParams,
          body: UpdateSendingNumberBody,
          response: withErrors({ 200: SendingNumber }),
        },
      },
      async (req) => numbers.updateSendingNumber(deps, req.auth.organizationId, req.params.id, req.body),
    );

    app.delete(
      '/sendingNumbers/:id',
      {
        schema: {
          tags,
          summary: 'Remove a number from the pool; its leads get another number at their next send',
          params: SendingNumberParams,
          response: withErrors({ 200: MessageBody }),
        },
      },
      async (req) => {
        await numbers.deleteSendingNumber(deps, req.auth.organizationId, req.params.id);
        return { message: 'Sending number deleted successfully.' };
      },
    );
  };
