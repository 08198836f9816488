import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Db } from '../platform/db/schema.js';
import { NotFound } from '../platform/errors.js';
import { findVoiceSettings, profileExists, saveVoiceSettings } from './calls.repository.js';

/** A profile's call settings (customer_profiles.voice): how the agent sounds and what it does around a call. */
export const VoiceSettings = Type.Object(
  {
    voice: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "ConversationRelay's text-to-speech voice, e.g. en-US-Journey-O",
      }),
    ),
    language: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 20,
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$',
        description: 'BCP-47 language of the call, e.g. en-US',
      }),
    ),
    welcomeGreeting: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'What the agent says first on a call it places; {{firstName}} and other placeholders are filled',
      }),
    ),
    voicemailEnabled: Type.Optional(Type.Boolean({ description: 'Leave voicemailText when a machine answers' })),
    voicemailText: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1000, description: 'The voicemail left after the beep' }),
    ),
    callFirst: Type.Optional(
      Type.Boolean({
        description:
          "A lead with a phone is opened by a live call, not a text: the profile's opening (on creation, a switch with sendMessage, an import, a campaign) becomes the call's welcome greeting",
      }),
    ),
    transferNumber: Type.Optional(
      Type.String({ pattern: '^\\+[1-9]\\d{6,14}$', description: 'E.164 number a warm transfer dials' }),
    ),
  },
  { additionalProperties: false },
);
export type VoiceSettingsView = Static<typeof VoiceSettings>;

export const DEFAULT_LANGUAGE = 'en-US';

export function parseVoice(text: string | null | undefined): VoiceSettingsView {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    return Value.Check(VoiceSettings, v) ? v : {};
  } catch {
    return {};
  }
}

/** The profile's call settings; the defaults ({}) when it has none. */
export async function readVoiceSettings(
  db: Db,
  organizationId: string,
  profileName: string,
): Promise<VoiceSettingsView> {
  return parseVoice(await findVoiceSettings(db, organizationId, profileName));
}

/** Replaces the profile's call settings (the profile must exist). */
export async function writeVoiceSettings(
  db: Db,
  organizationId: string,
  profileName: string,
  settings: VoiceSettingsView,
  at: string,
): Promise<VoiceSettingsView> {
  if (!(await profileExists(db, organizationId, profileName)))
    throw new NotFound('CustomerProfile', 'name', profileName);
  await saveVoiceSettings(db, organizationId, profileName, JSON.stringify(settings), at);
  return settings;
}
