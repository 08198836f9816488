import { Type, type Static } from '@sinclair/typebox';

const ClockTime = Type.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', description: 'HH:MM, 24-hour' });

export const Settings = Type.Object(
  {
    smsVoiceOptOutCoupled: Type.Boolean({ description: 'When true, an SMS or voice opt-out unsubscribes both.' }),
    timeZone: Type.String({ description: 'IANA zone used for contact hours when the lead has none' }),
    contactHours: Type.Object({ start: ClockTime, end: ClockTime }),
    helpText: Type.String({ description: 'Answer to the HELP / INFO keywords' }),
    sendingNumber: Type.Union([Type.String(), Type.Null()], {
      description: 'The number SMS and calls go out from (E.164), and the one inbound Twilio webhooks are routed by; unique across organizations',
    }),
  },
  { $id: 'Settings' },
);
export type SettingsView = Static<typeof Settings>;

export const UpdateSettingsBody = Type.Object(
  {
    smsVoiceOptOutCoupled: Type.Optional(Type.Boolean()),
    timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    contactHours: Type.Optional(Type.Object({ start: ClockTime, end: ClockTime }, { additionalProperties: false })),
    helpText: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    sendingNumber: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 32 }), Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateSettingsInput = Static<typeof UpdateSettingsBody>;
