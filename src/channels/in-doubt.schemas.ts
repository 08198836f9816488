import { Type, type Static } from '@sinclair/typebox';

export const ResolveMessageParams = Type.Object({
  leadId: Type.String({ minLength: 1, maxLength: 200 }),
  id: Type.String({ minLength: 1, maxLength: 200, description: "The message's id" }),
});
export type ResolveMessageParamsInput = Static<typeof ResolveMessageParams>;

export const ResolveMessageBody = Type.Object(
  {
    outcome: Type.Union([Type.Literal('sent'), Type.Literal('resend')], {
      description:
        'sent: the lead got it (seen at the provider or in the mailbox): recorded sent, as a send would be; resend: send it once more, through the compliance gate again',
    }),
  },
  { additionalProperties: false },
);
export type ResolveMessageInput = Static<typeof ResolveMessageBody>;
