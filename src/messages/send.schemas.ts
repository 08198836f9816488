import { Type, type Static } from '@sinclair/typebox';
import { Channel } from '../platform/http/schemas.js';

export const SendMessageBody = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 1600, description: 'The text to send' }),
    scheduledTime: Type.Optional(Type.String({ format: 'date-time', description: 'When to send (ISO 8601); now when omitted or past' })),
    sendWhenOff: Type.Optional(Type.Boolean({ description: 'Send even while the AI is off for the lead (opt-outs and DNC still apply)' })),
    channel: Type.Optional(Channel),
  },
  { additionalProperties: false },
);
export type SendMessageInput = Static<typeof SendMessageBody>;

export const SendMessageReply = Type.Object({
  message: Type.String(),
  id: Type.String({ format: 'uuid' }),
  channel: Channel,
  status: Type.String(),
  scheduledTime: Type.String({ format: 'date-time' }),
});
