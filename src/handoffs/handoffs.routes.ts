import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../platform/deps.js';
import { LeadIdParams, withErrors } from '../platform/http/schemas.js';
import {
  AckBody,
  Handoff,
  ListHandoffsQuery,
  ListHandoffsReply,
  OwnerReply,
  RaiseHandoffBody,
  Rep,
  RepsReply,
  SetOwnerBody,
  UpdateRepBody,
  UserIdParams,
} from './handoffs.schemas.js';
import {
  acknowledgeHandoff,
  closeHandoff,
  getRep,
  handOffLead,
  listHandoffs,
  listReps,
  setOwner,
  updateRep,
} from './handoffs.service.js';
import { findRepRow } from '../handoff-records/handoffs.repository.js';
import { DomainError } from '../platform/errors.js';

/** The console user behind a session request (`session:<userId>`), else undefined (an API key). */
const sessionUser = (req: FastifyRequest): string | undefined =>
  req.auth.keyId.startsWith('session:') ? req.auth.keyId.slice('session:'.length) : undefined;

/** Reps, lead owners and hand-offs (docs/handoffs.md). */
export const handoffRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/users',
      {
        schema: {
          tags: ['handoffs'],
          summary: "The organization's users with their sales-rep fields",
          response: withErrors({ 200: RepsReply }),
        },
      },
      async (req) => ({ users: await listReps(deps, req.auth.organizationId) }),
    );

    app.get(
      '/users/:id',
      {
        schema: {
          tags: ['handoffs'],
          summary: 'One user with their sales-rep fields',
          params: UserIdParams,
          response: withErrors({ 200: Type.Ref(Rep) }),
        },
      },
      async (req) => getRep(deps, req.auth.organizationId, req.params.id),
    );

    app.patch(
      '/users/:id',
      {
        schema: {
          tags: ['handoffs'],
          summary: "Set a user's sales-rep fields: phone, capacity, working hours, time zone, away",
          params: UserIdParams,
          body: UpdateRepBody,
          response: withErrors({ 200: Type.Ref(Rep) }, 'invalid_time_zone', 'bad_request'),
        },
      },
      async (req) => updateRep(deps, req.auth.organizationId, req.params.id, req.body),
    );

    app.put(
      '/leads/:leadId/owner',
      {
        schema: {
          tags: ['handoffs'],
          summary: "Set or clear the lead's owner",
          params: LeadIdParams,
          body: SetOwnerBody,
          response: withErrors({ 200: OwnerReply }, 'unknown_user'),
        },
      },
      async (req) => setOwner(deps, req.auth.organizationId, req.params.leadId, req.body.userId),
    );

    app.post(
      '/leads/:leadId/handoff',
      {
        schema: {
          tags: ['handoffs'],
          summary: "Hand the lead to a person (the AI is turned off), as the agent's handOff does",
          params: LeadIdParams,
          body: RaiseHandoffBody,
          response: withErrors({ 200: Type.Ref(Handoff) }),
        },
      },
      async (req) => handOffLead(deps, req.auth.organizationId, req.params.leadId, req.body.reason ?? null),
    );

    app.post(
      '/leads/:leadId/handoff/ack',
      {
        schema: {
          tags: ['handoffs'],
          summary: "Acknowledge the lead's open hand-off",
          params: LeadIdParams,
          body: AckBody,
          response: withErrors({ 200: Type.Ref(Handoff) }, 'unknown_user'),
        },
      },
      async (req) => {
        const organizationId = req.auth.organizationId;
        let by = sessionUser(req) ?? null;
        if (!by && req.body.userId) {
          if (!(await findRepRow(deps.db, organizationId, req.body.userId)))
            throw new DomainError('unknown_user', {
              detail: `userId: no user with id ${req.body.userId} in this organization`,
            });
          by = req.body.userId;
        }
        return acknowledgeHandoff(deps, organizationId, req.params.leadId, by);
      },
    );

    app.post(
      '/leads/:leadId/handoff/close',
      {
        schema: {
          tags: ['handoffs'],
          summary: "Close the lead's hand-off: it no longer counts against its owner's capacity",
          params: LeadIdParams,
          response: withErrors({ 200: Type.Ref(Handoff) }),
        },
      },
      async (req) => closeHandoff(deps, req.auth.organizationId, req.params.leadId),
    );

    app.get(
      '/handoffs',
      {
        schema: {
          tags: ['handoffs'],
          summary:
            'Hand-offs raised in a window, with the time to the first human touch (p50/p90 overall and per owner)',
          querystring: ListHandoffsQuery,
          response: withErrors({ 200: ListHandoffsReply }, 'invalid_cursor'),
        },
      },
      async (req) =>
        listHandoffs(deps, req.auth.organizationId, {
          ...req.query,
          ownerId: req.query.ownerId === 'me' ? (sessionUser(req) ?? 'me') : req.query.ownerId,
        }),
    );
  };
