import { Type, type Static } from '@sinclair/typebox';
import { LastMessage, LeadSearchQuery } from '../leads/lead-search.schemas.js';
import { Lead } from '../leads/leads.schemas.js';
import { Message } from '../messages/messages.schemas.js';
import { SCOPES } from '../platform/auth/scopes.js';
import { Channel, NextToken, PageQuery } from '../platform/http/schemas.js';

const Role = Type.Union([Type.Literal('viewer'), Type.Literal('agent'), Type.Literal('admin')]);

export const SessionUser = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  organizationId: Type.String(),
  organizationName: Type.String(),
});
export type SessionUserView = Static<typeof SessionUser>;

export const SessionReply = Type.Object({ user: SessionUser, csrfToken: Type.String() });

export const LoginBody = Type.Object(
  { email: Type.String({ minLength: 1, maxLength: 320 }), password: Type.String({ minLength: 1, maxLength: 1024 }) },
  { additionalProperties: false },
);

export const User = Type.Object({
  id: Type.String(),
  email: Type.String(),
  role: Role,
  organizationId: Type.String(),
  createdAt: Type.String(),
});
export const UsersReply = Type.Object({ users: Type.Array(User) });
export const CreateUserBody = Type.Object(
  { email: Type.String({ minLength: 3, maxLength: 320 }), role: Role },
  { additionalProperties: false },
);
export const CreateUserReply = Type.Object({
  user: User,
  password: Type.String({ description: 'Shown once; never stored in clear' }),
});
export const UserIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const UpdateUserBody = Type.Object({ role: Role }, { additionalProperties: false });

const Scope = Type.Union(SCOPES.map((s) => Type.Literal(s)));
export const ApiKey = Type.Object({
  prefix: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  scopes: Type.Array(Type.String()),
  createdAt: Type.String(),
  revokedAt: Type.Union([Type.String(), Type.Null()]),
});
export const KeysReply = Type.Object({ keys: Type.Array(ApiKey) });
export const CreateKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 50 })),
  },
  { additionalProperties: false },
);
export const CreateKeyReply = Type.Object({
  key: Type.String({ description: 'Shown once; never stored in clear' }),
  ...ApiKey.properties,
});
export const KeyPrefixParams = Type.Object({ prefix: Type.String({ minLength: 1, maxLength: 100 }) });

export const ReadsQuery = Type.Object({
  leadIds: Type.String({ minLength: 1, maxLength: 40_000, description: 'Comma-separated lead ids (at most 500)' }),
});
export const ReadsReply = Type.Object({ reads: Type.Record(Type.String(), Type.String()) });
export const LeadIdParams = Type.Object({ leadId: Type.String({ minLength: 1, maxLength: 200 }) });

/** The inbox's filters (the same words as GET /v1/leads), and the channel of the latest message. */
export const InboxQuery = Type.Object({
  search: LeadSearchQuery.search,
  aiOn: LeadSearchQuery.aiOn,
  tag: LeadSearchQuery.tag,
  profile: LeadSearchQuery.profile,
  needsAttention: LeadSearchQuery.needsAttention,
  channel: Type.Optional(Channel),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  nextToken: PageQuery.nextToken,
});

const Subject = Type.Union([Type.String(), Type.Null()], {
  description: "An email's subject line, apart from its text (the body); null for other channels and without one",
});

const Conversation = Type.Intersect([
  Type.Ref(Lead),
  Type.Object({
    deleted: Type.Literal(false),
    deletedAt: Type.Null(),
    lastMessage: Type.Union([Type.Object({ ...LastMessage.properties, subject: Subject }), Type.Null()]),
    needsAttention: Type.Boolean(),
  }),
]);

export const InboxReply = Type.Object({
  conversations: Type.Array(Conversation),
  total: Type.Integer({ description: 'How many conversations pass the filters, on every page' }),
  nextToken: NextToken,
});

export const ConsoleMessagesReply = Type.Object({
  messages: Type.Array(
    Type.Intersect([Type.Ref(Message), Type.Object({ subject: Subject, purpose: LastMessage.properties.purpose })]),
  ),
  nextToken: NextToken,
});
