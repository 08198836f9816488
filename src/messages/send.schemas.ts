import { Type, type Static } from '@sinclair/typebox';
import { Channel } from '../platform/http/schemas.js';

export const SendMessageBody = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 1600, description: 'The text to send' }),
    scheduledTime: Type.Optional(Type.String({ format: 'date-time', description: 'When to send (ISO 8601); now when omitted or past' })),
    sendWhenOff: Type.Optional(Type.Boolean({ description: 'Send even while the AI is off for the lead (opt-outs and DNC still apply)' })),
    channel: Type.Optional(Channel),
    overrideBusinessHours: Type.Optional(Type.Boolean({
      description: "Lift the organization's own contact hours for this message. The legal window where the lead is (08:00-21:00 local, or a stricter regional one) still applies, as do opt-outs and DNC.",
    })),
  },
  { additionalProperties: false },
);
export type SendMessageInput = Static<typeof SendMessageBody>;

export const SendMessageReply = Type.Object({
  message: Type.String(),
  id: Type.String({ format: 'uuid' }),
  channel: Channel,
  status: Type.Union([Type.Literal('scheduled'), Type.Literal('waiting'), Type.Literal('blocked')], {
    description: "What the compliance gate decided at request time: scheduled (it goes out at scheduledTime, the gate is asked again then), waiting (outside contact hours where the lead is: it goes out at scheduledTime, the window's opening) or blocked (it will never go out; see statusCode)",
  }),
  statusCode: Type.Union([Type.String(), Type.Null()], { description: 'OPTED_OUT, DNC, AI_OFF, FREQUENCY_CAP, NO_ADDRESS, CONTACT_HOURS; null when scheduled' }),
  statusReason: Type.Union([Type.String(), Type.Null()]),
  scheduledTime: Type.String({ format: 'date-time' }),
});
