import { Type, type Static } from '@sinclair/typebox';
import { NextToken, PageQuery } from '../platform/http/schemas.js';

const PhoneInput = Type.String({ minLength: 1, maxLength: 40, description: 'Any common format; stored in E.164' });

/** Unknown fields are refused so a client never believes an ignored field (e.g. `source`) took effect. */
export const DncPhoneBody = Type.Object({ phone: PhoneInput }, { additionalProperties: false });
export type DncPhoneInput = Static<typeof DncPhoneBody>;

export const DncEntry = Type.Object({
  phone: Type.String({ description: 'E.164, with a leading +' }),
  source: Type.String({ description: 'Where the entry came from, e.g. api' }),
  createdAt: Type.String({ format: 'date-time' }),
});
export type DncEntryView = Static<typeof DncEntry>;

export const ListDncQuery = Type.Object({ ...PageQuery });
export type ListDncInput = Static<typeof ListDncQuery>;

export const ListDncReply = Type.Object({ entries: Type.Array(DncEntry), nextToken: NextToken });

export const CheckDncQuery = Type.Object({ phone: PhoneInput });

export const CheckDncReply = Type.Object({
  phone: Type.String({ description: 'The number as normalised (E.164)' }),
  isDoNotContact: Type.Boolean(),
});

/** Literal texts of the hosted service's DNC operations. */
export const DNC_ADDED = 'Phone number successfully added to DNC list';
export const DNC_REMOVED = 'Phone number removed from DNC list';
