import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../platform/deps.js';
import { withErrors } from '../platform/http/schemas.js';
import { Settings, UpdateSettingsBody } from './settings.schemas.js';
import { readSettings, toSettingsView, updateSettings } from './settings.service.js';

export const settingsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/settings',
      {
        schema: {
          tags: ['settings'],
          summary: 'Read the organization settings',
          response: withErrors({ 200: Type.Ref(Settings) }),
        },
      },
      async (req) => toSettingsView(await readSettings(deps.db, req.auth.organizationId)),
    );

    app.patch(
      '/settings',
      {
        schema: {
          tags: ['settings'],
          summary: 'Change organization settings (only the fields sent)',
          body: UpdateSettingsBody,
          response: withErrors(
            { 200: Type.Ref(Settings) },
            'invalid_phone',
            'invalid_time_zone',
            'invalid_url',
            'calcom_required',
            'invalid_hours',
            'unknown_user',
            'unknown_inbound_profile',
          ),
        },
      },
      async (req) => updateSettings(deps, req.auth.organizationId, req.body),
    );
  };
