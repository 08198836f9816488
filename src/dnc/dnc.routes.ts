import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { MessageBody, withErrors } from '../platform/http/schemas.js';
import {
  CheckDncQuery,
  CheckDncReply,
  DNC_ADDED,
  DNC_REMOVED,
  DncPhoneBody,
  ListDncQuery,
  ListDncReply,
} from './dnc.schemas.js';
import * as dnc from './dnc.service.js';

export const dncRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['dnc'];

    app.post(
      '/dnc/register',
      {
        schema: {
          tags,
          summary: 'Add a phone number to the Do Not Contact list (idempotent)',
          body: DncPhoneBody,
          response: withErrors({ 200: MessageBody }, 'invalid_phone'),
        },
      },
      async (req) => {
        await dnc.registerDnc(deps, req.auth.organizationId, req.body.phone);
        return { message: DNC_ADDED };
      },
    );

    app.get(
      '/dnc',
      {
        schema: {
          tags,
          summary: 'List the Do Not Contact list, by phone',
          querystring: ListDncQuery,
          response: withErrors({ 200: ListDncReply }, 'invalid_cursor'),
        },
      },
      async (req) => dnc.listDnc(deps, req.auth.organizationId, req.query),
    );

    app.get(
      '/dnc/check',
      {
        schema: {
          tags,
          summary: 'Whether a phone number is on the Do Not Contact list',
          querystring: CheckDncQuery,
          response: withErrors({ 200: CheckDncReply }, 'invalid_phone'),
        },
      },
      async (req) => dnc.checkDnc(deps, req.auth.organizationId, req.query.phone),
    );

    app.post(
      '/dnc/remove',
      {
        schema: {
          tags,
          summary: 'Remove a phone number from the Do Not Contact list',
          body: DncPhoneBody,
          response: withErrors({ 200: MessageBody }, 'invalid_phone'),
        },
      },
      async (req) => {
        await dnc.removeDnc(deps, req.auth.organizationId, req.body.phone, `key:${req.auth.keyId}`);
        return { message: DNC_REMOVED };
      },
    );
  };
