import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../platform/deps.js';
import { MessageBody, withErrors } from '../platform/http/schemas.js';
import {
  CreateProfileBody,
  CustomerProfile,
  ListProfilesReply,
  ProfileNameParams,
  UpdateProfileBody,
} from './profiles.schemas.js';
import * as profiles from './profiles.service.js';

export const profileRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['customerProfiles'];

    app.get(
      '/customerProfiles',
      {
        schema: { tags, summary: 'List customer profiles by name', response: withErrors({ 200: ListProfilesReply }) },
      },
      async (req) => ({ profiles: await profiles.listProfiles(deps, req.auth.organizationId) }),
    );

    app.post(
      '/customerProfiles',
      {
        schema: {
          tags,
          summary: 'Create a customer profile; answers 201 with it, 409 when the name is taken',
          body: CreateProfileBody,
          response: withErrors({ 201: Type.Ref(CustomerProfile) }, 'duplicate_profile', 'duplicate_variant'),
        },
      },
      async (req, reply) => {
        const profile = await profiles.createProfile(deps, req.auth.organizationId, req.body);
        return reply.code(201).send(profile);
      },
    );

    app.get(
      '/customerProfiles/:name',
      {
        schema: {
          tags,
          summary: 'Get a customer profile',
          params: ProfileNameParams,
          response: withErrors({ 200: Type.Ref(CustomerProfile) }),
        },
      },
      async (req) => profiles.getProfile(deps, req.auth.organizationId, req.params.name),
    );

    app.patch(
      '/customerProfiles/:name',
      {
        schema: {
          tags,
          summary: 'Change a customer profile (only the fields sent; the name cannot change)',
          params: ProfileNameParams,
          body: UpdateProfileBody,
          response: withErrors({ 200: Type.Ref(CustomerProfile) }, 'duplicate_variant'),
        },
      },
      async (req) => profiles.updateProfile(deps, req.auth.organizationId, req.params.name, req.body),
    );

    app.delete(
      '/customerProfiles/:name',
      {
        schema: {
          tags,
          summary: 'Delete a customer profile; 409 for `default` or while leads use it',
          params: ProfileNameParams,
          response: withErrors({ 200: MessageBody }, 'default_profile', 'profile_in_use'),
        },
      },
      async (req) => {
        await profiles.deleteProfile(deps, req.auth.organizationId, req.params.name);
        return { message: 'Customer profile deleted successfully.' };
      },
    );
  };
