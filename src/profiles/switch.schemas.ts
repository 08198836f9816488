import { Type, type Static } from '@sinclair/typebox';

// A year either way: enough for any follow-up, and a scheduler's date arithmetic stays finite.
const MAX_DELAY_HOURS = 24 * 365;
const MAX_DELAY_MINS = 60 * MAX_DELAY_HOURS;

/**
 * Unknown fields are refused: a misspelt delay (e.g. `messageDelayMinutes`)
 * would otherwise be ignored and the message sent at once.
 */
export const SwitchProfileBody = Type.Object(
  {
    profile: Type.String({ minLength: 1, maxLength: 200, description: 'Name of the new customer profile' }),
    sendMessage: Type.Optional(
      Type.Boolean({
        description:
          "Send the new profile's opening message (its template, or one the AI writes when it has none); default false",
      }),
    ),
    messageDelayHours: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_DELAY_HOURS, description: 'Takes precedence over messageDelayMins' }),
    ),
    messageDelayMins: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_DELAY_MINS, description: 'Used only when messageDelayHours is absent' }),
    ),
    clearMemory: Type.Optional(
      Type.Boolean({
        description: "Clear the AI's memory of the conversation (the message history is kept); default false",
      }),
    ),
  },
  { additionalProperties: false },
);
export type SwitchProfileInput = Static<typeof SwitchProfileBody>;

/** Parley's addition to the reply when sendMessage is true: what became of the opening message. */
const OpeningOutcome = Type.Object({
  status: Type.Union([Type.Literal('scheduled'), Type.Literal('composing'), Type.Literal('not_sent')], {
    description:
      "scheduled: the profile's template, rendered, is recorded as a message (messageId) and sent through the gate after the delay; composing: the profile has no template, so the AI agent is writing the opening from the profile's instructions and the lead's context, then it is sent the same way; not_sent: the same profile's opening was already sent to the lead (reason)",
  }),
  messageId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
});

export const SwitchProfileReply = Type.Object({
  message: Type.String(),
  sendMessage: Type.Boolean(),
  messageDelayHours: Type.Integer({ description: 'Effective value: 0 when absent' }),
  messageDelayMins: Type.Integer({
    description: 'Effective value: 0 when messageDelayHours was given or both are absent',
  }),
  opening: Type.Optional(OpeningOutcome),
});
