import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../platform/deps.js';
import { ErrorBody } from '../platform/http/schemas.js';
import { isoNow } from '../platform/clock.js';
import { changeRole, createUser, deleteUser, usersOf } from '../users/users.service.js';
import { CreateUserBody, CreateUserReply, UpdateUserBody, User, UserIdParams, UsersReply } from './console.schemas.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
const config = { adminOnly: true };

/** The organization's console users (admins only). */
export const consoleUserRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get('/users', { config, schema: { hide: true, response: { 200: UsersReply, ...errors } } }, async (req) => ({
      users: await usersOf(deps, req.consoleSession.organizationId),
    }));

    app.post(
      '/users',
      { config, schema: { hide: true, body: CreateUserBody, response: { 201: CreateUserReply, ...errors } } },
      async (req, reply) => {
        const created = await createUser(deps.db, req.consoleSession.organizationId, req.body, isoNow(deps.clock));
        return reply.code(201).send(created);
      },
    );

    app.patch(
      '/users/:id',
      {
        config,
        schema: { hide: true, params: UserIdParams, body: UpdateUserBody, response: { 200: User, ...errors } },
      },
      async (req) =>
        changeRole(deps, req.consoleSession.organizationId, req.consoleSession.userId, req.params.id, req.body.role),
    );

    app.delete(
      '/users/:id',
      { config, schema: { hide: true, params: UserIdParams, response: { 204: { type: 'null' }, ...errors } } },
      async (req, reply) => {
        await deleteUser(deps, req.consoleSession.organizationId, req.consoleSession.userId, req.params.id);
        return reply.code(204).send();
      },
    );
  };
