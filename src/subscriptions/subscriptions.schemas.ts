import { Type } from '@sinclair/typebox';
import { Channel } from '../platform/http/schemas.js';

/** A channel as a client may name it: `call` is the hosted service's name for `voice` (subscriptions/channels.ts). */
export const ChannelInput = Type.Union(
  [Type.Literal('sms'), Type.Literal('voice'), Type.Literal('call'), Type.Literal('email')],
  {
    description: 'sms, voice or email; call is accepted as voice (the hosted service spells voice so)',
  },
);

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
