import { Type } from '@sinclair/typebox';
import { Channel, ChannelInput } from '../platform/http/schemas.js';

/** The whole body may be omitted, `{}`, or name at least one channel. */
export const ChannelsBody = Type.Object({
  channels: Type.Optional(Type.Array(ChannelInput, { minItems: 1, maxItems: 10 })),
});

export const ChannelsReply = Type.Object({
  message: Type.String(),
  channels: Type.Array(Channel, { description: 'The set actually applied, in the order sms, voice, email' }),
});

/** The contract fixes this text for every invalid unsubscribe body. */
export const INVALID_CHANNELS = 'channels must include at least one of: sms, voice, email';
