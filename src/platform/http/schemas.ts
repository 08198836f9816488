import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  { message: Type.String(), code: Type.Optional(Type.String()) },
  { $id: 'Error', description: 'Every error: one human-readable message, plus a machine-readable code.' },
);

export const MessageBody = Type.Object({ message: Type.String() });

export const Channel = Type.Union([Type.Literal('sms'), Type.Literal('voice'), Type.Literal('email')]);

export const NextToken = Type.Union([Type.String(), Type.Null()], {
  description: 'Opaque cursor for the next page; null on the last page.',
});

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  nextToken: Type.Optional(Type.String({ maxLength: 512 })),
};

const errorRef = Type.Ref(ErrorBody);

/** Error responses every authenticated route can give, plus the route's own. */
export function withErrors<T extends Record<number, TSchema>>(ok: T, ...statuses: number[]) {
  const all = [400, 403, 404, 413, 415, 429, 500, ...statuses];
  const errors: Record<number, TSchema> = {};
  for (const s of all) errors[s] = errorRef;
  return { ...errors, ...ok } as T & Record<number, TSchema>;
}
