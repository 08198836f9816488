import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../platform/deps.js';
import { maySend } from '../platform/auth/scopes.js';
import { LeadIdParams, MessageBody, withErrors } from '../platform/http/schemas.js';
import {
  CreateLeadBody,
  CreateLeadReply,
  Lead,
  ListLeadsQuery,
  ListLeadsReply,
  LookupQuery,
  LookupReply,
  RemoveTagsBody,
  ReplaceTagsBody,
  ReplaceTagsReply,
  UpdateLeadBody,
  UpdateLeadReply,
} from './leads.schemas.js';
import * as leads from './leads.service.js';

export const leadRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['leads'];

    app.post(
      '/leads/create',
      {
        schema: {
          tags,
          summary: 'Create a lead',
          body: CreateLeadBody,
          response: withErrors(
            { 200: CreateLeadReply },
            'duplicate_phone',
            'no_channel',
            'invalid_phone',
            'invalid_time_zone',
            'invalid_follow_up',
          ),
        },
      },
      async (req) => {
        const id = await leads.createLead(deps, req.auth.organizationId, req.body, maySend(req.auth.scopes));
        return { message: 'Lead created successfully.', id };
      },
    );

    app.get(
      '/leads',
      {
        schema: {
          tags,
          summary: 'List leads, oldest first',
          querystring: ListLeadsQuery,
          response: withErrors(
            { 200: ListLeadsReply },
            'invalid_cursor',
            'invalid_time',
            'invalid_combination',
            'invalid_search',
          ),
        },
      },
      async (req) => leads.listLeads(deps, req.auth.organizationId, req.query),
    );

    app.get(
      '/leads/lookup',
      {
        schema: {
          tags,
          summary: 'Find a lead by phone',
          querystring: LookupQuery,
          response: withErrors({ 200: LookupReply }, 'invalid_phone'),
        },
      },
      async (req) => ({ id: await leads.lookupLeadByPhone(deps, req.auth.organizationId, req.query.phone) }),
    );

    app.get(
      '/leads/:leadId',
      {
        schema: {
          tags,
          summary: 'Get lead details',
          params: LeadIdParams,
          response: withErrors({ 200: Type.Ref(Lead) }),
        },
      },
      async (req) => leads.getLead(deps, req.auth.organizationId, req.params.leadId),
    );

    app.patch(
      '/leads/:leadId',
      {
        schema: {
          tags,
          summary:
            'Update a lead; additionalInfo is merged, a null key deleted; followUpConfig / followUpStep reset the follow-up timer',
          params: LeadIdParams,
          body: UpdateLeadBody,
          response: withErrors(
            { 200: UpdateLeadReply },
            'duplicate_phone',
            'no_channel',
            'invalid_phone',
            'invalid_time_zone',
            'invalid_follow_up',
          ),
        },
      },
      async (req) => {
        await leads.updateLead(deps, req.auth.organizationId, req.params.leadId, req.body);
        // The reference's answer, with the lead as it now is beside it (Parley's addition).
        return {
          message: 'Lead updated successfully.',
          ...(await leads.getLead(deps, req.auth.organizationId, req.params.leadId)),
        };
      },
    );

    app.delete(
      '/leads/:leadId',
      {
        schema: {
          tags,
          summary: 'Erase a lead and its messages (opt-out and DNC records are kept)',
          params: LeadIdParams,
          response: withErrors({ 200: MessageBody }),
        },
      },
      async (req) => {
        await leads.deleteLead(deps, req.auth.organizationId, req.params.leadId);
        return { message: 'Lead deleted successfully.' };
      },
    );

    app.post(
      '/leads/:leadId/turnOffAi',
      {
        schema: {
          tags,
          summary: 'Pause the AI for a lead (subscriptions unchanged)',
          params: LeadIdParams,
          response: withErrors({ 200: MessageBody }),
        },
      },
      async (req) => {
        await leads.setAi(deps, req.auth.organizationId, req.params.leadId, false);
        return { message: 'AI turned off successfully.' };
      },
    );

    app.post(
      '/leads/:leadId/turnOnAi',
      {
        schema: {
          tags,
          summary: 'Turn the AI back on for a lead',
          params: LeadIdParams,
          response: withErrors({ 200: MessageBody }),
        },
      },
      async (req) => {
        await leads.setAi(deps, req.auth.organizationId, req.params.leadId, true);
        return { message: 'AI turned on successfully.' };
      },
    );

    app.put(
      '/leads/:leadId/tags',
      {
        schema: {
          tags,
          summary: "Replace a lead's tags with tags of the organization",
          params: LeadIdParams,
          body: ReplaceTagsBody,
          response: withErrors({ 200: ReplaceTagsReply }, 'unknown_tag'),
        },
      },
      async (req) => ({
        tags: await leads.replaceTags(deps, req.auth.organizationId, req.params.leadId, req.body.tagIds),
      }),
    );

    app.post(
      '/leads/:leadId/tags/remove',
      {
        schema: {
          tags,
          summary: 'Remove tags from a lead',
          params: LeadIdParams,
          body: RemoveTagsBody,
          response: withErrors({ 200: Type.Object({ message: Type.String(), removed: Type.Integer() }) }),
        },
      },
      async (req) => {
        const removed = await leads.removeTags(deps, req.auth.organizationId, req.params.leadId, req.body.tagIds);
        return { message: 'Tags removed successfully.', removed };
      },
    );
  };
