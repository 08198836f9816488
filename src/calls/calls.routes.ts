import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireLead } from '../lead-records/leads.repository.js';
import type { Deps } from '../platform/deps.js';
import { DomainError, NotFound } from '../platform/errors.js';
import { LeadIdParams, withErrors } from '../platform/http/schemas.js';
import { ProfileNameParams } from '../profiles/profiles.schemas.js';
import { findCall, listCallsOfLead, profileExists, type CallRow } from '../call-records/calls.repository.js';
import { placeCall } from './calls.service.js';
import { readVoiceSettings, VoiceSettings, writeVoiceSettings } from '../call-records/voice-settings.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const Call = Type.Object({
  id: Type.String(),
  leadId: Type.Union([Type.String(), Type.Null()]),
  direction: Type.Union([Type.Literal('OUTBOUND'), Type.Literal('INBOUND')]),
  status: Type.String({
    description: 'blocked, waiting, dialing, queued, ringing, in-progress, completed, failed, canceled',
  }),
  statusCode: Nullable(Type.String()),
  statusReason: Nullable(Type.String()),
  outcome: Nullable(
    Type.String({
      description:
        'human, voicemail, no-answer, busy, failed, canceled, completed, transferred, transfer-unanswered, opted-out, missed',
    }),
  ),
  providerCallId: Nullable(Type.String()),
  startedAt: Nullable(Type.String({ format: 'date-time' })),
  answeredAt: Nullable(Type.String({ format: 'date-time' })),
  endedAt: Nullable(Type.String({ format: 'date-time' })),
  durationSeconds: Type.Union([Type.Integer(), Type.Null()]),
  summary: Nullable(Type.String()),
  transferTo: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
});

export const toCallView = (c: CallRow) => ({
  id: c.id,
  leadId: c.lead_id,
  direction: c.direction === 'inbound' ? ('INBOUND' as const) : ('OUTBOUND' as const),
  status: c.status,
  statusCode: c.status_code,
  statusReason: c.status_reason,
  outcome: c.outcome,
  providerCallId: c.provider_call_id,
  startedAt: c.started_at,
  answeredAt: c.answered_at,
  endedAt: c.ended_at,
  durationSeconds: c.duration_seconds === null ? null : Number(c.duration_seconds),
  summary: c.summary,
  transferTo: c.transfer_to,
  createdAt: c.created_at,
});

const PlaceCallBody = Type.Object(
  {
    overrideBusinessHours: Type.Optional(
      Type.Boolean({
        description: "Lifts the organization's own hours, never the legal 08:00-21:00 where the lead is",
      }),
    ),
    voicemailEnabled: Type.Optional(
      Type.Boolean({
        description:
          "Leave the profile's voicemail text when a machine answers (default: the profile's voicemailEnabled)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const PlaceCallReply = Type.Object({
  message: Type.String(),
  id: Type.String(),
  status: Type.String({
    description:
      'dialing (the gate allowed it and Twilio took it), waiting (outside contact hours: not dialled), blocked, failed',
  }),
  statusCode: Nullable(Type.String()),
  statusReason: Nullable(Type.String()),
  scheduledTime: Nullable(
    Type.String({ format: 'date-time', description: 'When contact hours open, for a waiting call' }),
  ),
  providerCallId: Nullable(Type.String()),
});

const CallIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const callRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/leads/:leadId/call',
      {
        schema: {
          tags: ['calls'],
          summary: 'Phone the lead now: the agent holds the conversation (through the compliance gate)',
          params: LeadIdParams,
          body: Type.Optional(PlaceCallBody),
          response: withErrors(
            { 200: PlaceCallReply },
            'channel_unavailable',
            'no_sending_number',
            'voice_not_configured',
          ),
        },
      },
      async (req) => {
        const placed = await placeCall(deps, req.auth.organizationId, req.params.leadId, req.body ?? {});
        const message =
          placed.status === 'blocked'
            ? 'Call blocked by the compliance gate.'
            : placed.status === 'waiting'
              ? 'Call waits for contact hours.'
              : placed.status === 'failed'
                ? 'Call failed.'
                : 'Call placed.';
        return { message, ...placed };
      },
    );

    app.get(
      '/leads/:leadId/calls',
      {
        schema: {
          tags: ['calls'],
          summary: "The lead's calls, newest first",
          params: LeadIdParams,
          response: withErrors({ 200: Type.Object({ calls: Type.Array(Call) }) }),
        },
      },
      async (req) => {
        await requireLead(deps.db, req.auth.organizationId, req.params.leadId);
        return {
          calls: (await listCallsOfLead(deps.db, req.auth.organizationId, req.params.leadId, 100)).map(toCallView),
        };
      },
    );

    app.get(
      '/calls/:id',
      {
        schema: { tags: ['calls'], summary: 'One call', params: CallIdParams, response: withErrors({ 200: Call }) },
      },
      async (req) => {
        const call = await findCall(deps.db, req.auth.organizationId, req.params.id);
        if (!call) throw new NotFound('Call', 'id', req.params.id);
        return toCallView(call);
      },
    );

    app.get(
      '/customerProfiles/:name/voice',
      {
        schema: {
          tags: ['calls'],
          summary: "A profile's call settings",
          params: ProfileNameParams,
          response: withErrors({ 200: VoiceSettings }),
        },
      },
      async (req) => {
        if (!(await profileExists(deps.db, req.auth.organizationId, req.params.name)))
          throw new NotFound('CustomerProfile', 'name', req.params.name);
        return readVoiceSettings(deps.db, req.auth.organizationId, req.params.name);
      },
    );

    app.put(
      '/customerProfiles/:name/voice',
      {
        schema: {
          tags: ['calls'],
          summary: "Replace a profile's call settings",
          params: ProfileNameParams,
          body: VoiceSettings,
          response: withErrors({ 200: VoiceSettings }, 'call_first_needs_twilio'),
        },
      },
      async (req) => {
        // Calling first needs a carrier: refused here rather than failing every opening later.
        if (req.body.callFirst === true && !deps.config.twilio) throw new DomainError('call_first_needs_twilio');
        return writeVoiceSettings(
          deps.db,
          req.auth.organizationId,
          req.params.name,
          req.body,
          deps.clock.now().toISOString(),
        );
      },
    );
  };
