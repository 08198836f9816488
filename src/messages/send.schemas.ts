import { Type, type Static } from '@sinclair/typebox';
import { Channel, ChannelInput } from '../platform/http/schemas.js';

/** The hosted service's documented body (message, scheduledTime, sendWhenOff, scheduleFollowUps, overrideBusinessHours), plus Parley's `channel`. */
export const SendMessageBody = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 1600, description: 'The text to send' }),
    scheduledTime: Type.Optional(
      Type.String({ format: 'date-time', description: 'When to send (ISO 8601); now when omitted or past' }),
    ),
    sendWhenOff: Type.Optional(
      Type.Boolean({
        description: 'Send even while the AI is off for the lead (opt-outs and DNC still apply); default false',
      }),
    ),
    scheduleFollowUps: Type.Optional(
      Type.Boolean({
        description:
          "Schedule the lead's follow-up messages after this one (the follow-up cadence starts when it goes out); default false",
      }),
    ),
    overrideBusinessHours: Type.Optional(
      Type.Boolean({
        description:
          "Lift the organization's own contact hours for this message; default false. The legal window where the lead is (08:00-21:00 local, or a stricter regional one) still applies, as do opt-outs and DNC: outside it the message waits for the window.",
      }),
    ),
    channel: Type.Optional(ChannelInput),
  },
  { additionalProperties: false },
);
export type SendMessageInput = Static<typeof SendMessageBody>;

/** The hosted service's answer is `{message}`; the rest are Parley's additions. */
export const SendMessageReply = Type.Object({
  message: Type.String({
    description:
      '"Message sent successfully." when the message is accepted (now, at scheduledTime, or when contact hours open); "Message blocked by the compliance gate." when it will never go out',
  }),
  id: Type.String({ format: 'uuid' }),
  channel: Channel,
  status: Type.Union([Type.Literal('scheduled'), Type.Literal('waiting'), Type.Literal('blocked')], {
    description:
      "What the compliance gate decided at request time: scheduled (it goes out at scheduledTime, the gate is asked again then), waiting (outside contact hours where the lead is: it goes out at scheduledTime, the window's opening) or blocked (it will never go out; see statusCode)",
  }),
  statusCode: Type.Union([Type.String(), Type.Null()], {
    description: 'OPTED_OUT, DNC, AI_OFF, FREQUENCY_CAP, NO_ADDRESS, CONTACT_HOURS; null when scheduled',
  }),
  statusReason: Type.Union([Type.String(), Type.Null()]),
  scheduledTime: Type.String({ format: 'date-time' }),
  scheduleFollowUps: Type.Boolean({ description: 'Whether follow-ups were asked for after this message' }),
});
