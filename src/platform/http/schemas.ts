import { Type, type TSchema } from '@sinclair/typebox';
import { ERRORS, type ErrorCode } from '../error-catalogue.js';

export const ErrorBody = Type.Object(
  {
    message: Type.String(),
    code: Type.Optional(
      Type.Union(
        (Object.keys(ERRORS) as ErrorCode[]).map((c) => Type.Literal(c)),
        {
          description:
            'One of the error catalogue (docs/api.md#error-codes); each operation lists its own in x-error-codes.',
        },
      ),
    ),
  },
  { $id: 'Error', description: 'Every error: one human-readable message, plus a machine-readable code.' },
);

export const MessageBody = Type.Object({ message: Type.String() });

/** The path parameter of every `/v1/leads/{leadId}/...` route, whichever capability answers it. */
export const LeadIdParams = Type.Object({ leadId: Type.String({ minLength: 1, maxLength: 200 }) });

export const Channel = Type.Union([Type.Literal('sms'), Type.Literal('voice'), Type.Literal('email')]);

/** A channel as a client may name it: `call` is the hosted service's name for `voice` (lead-records/channels.ts). */
export const ChannelInput = Type.Union(
  [Type.Literal('sms'), Type.Literal('voice'), Type.Literal('call'), Type.Literal('email')],
  {
    description: 'sms, voice or email; call is accepted as voice (the hosted service spells voice so)',
  },
);

export const NextToken = Type.Union([Type.String(), Type.Null()], {
  description: 'Opaque cursor for the next page; null on the last page.',
});

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  nextToken: Type.Optional(Type.String({ maxLength: 512 })),
};

const errorRef = Type.Ref(ErrorBody);

/** The codes each route's response map declared; the OpenAPI document lists them per operation (openapi.ts). */
const declared = new WeakMap<object, readonly ErrorCode[]>();

export const declaredErrors = (response: object): readonly ErrorCode[] => declared.get(response) ?? [];

/**
 * Error responses every authenticated route can give, plus those of the codes
 * the route's own work can answer (its status comes from the catalogue).
 */
export function withErrors<T extends Record<number, TSchema>>(ok: T, ...codes: ErrorCode[]) {
  const all = [400, 403, 404, 413, 415, 429, 500, ...codes.map((c) => ERRORS[c].status)];
  const errors: Record<number, TSchema> = {};
  for (const s of all) errors[s] = errorRef;
  const response = { ...errors, ...ok } as T & Record<number, TSchema>;
  declared.set(response, codes);
  return response;
}
