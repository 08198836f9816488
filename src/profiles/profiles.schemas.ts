import { Type, type Static } from '@sinclair/typebox';

/**
 * A profile name appears in URLs and on every lead, so it is kept to plain
 * characters and may not start or end with a space (`default ` and `default`
 * would otherwise be two profiles that read the same).
 */
export const ProfileName = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[A-Za-z0-9_-](?:[A-Za-z0-9 _-]*[A-Za-z0-9_-])?$',
  description: 'Letters, digits, space, _ and -; 1 to 100 characters; no leading or trailing space',
});

/** Any text is accepted in the path: an unknown or impossible name is a 404, never a 400. */
export const ProfileNameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) });

const Text = (maxLength: number, description: string) =>
  Type.Union([Type.String({ maxLength }), Type.Null()], { description });

const Questions = Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), {
  maxItems: 100,
  description: 'Questions the AI works through with the lead, in order',
});

export const CustomerProfile = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    description: Type.Union([Type.String(), Type.Null()]),
    instructions: Type.Union([Type.String(), Type.Null()], { description: 'Instructions for the AI agent' }),
    openingMessage: Type.Union([Type.String(), Type.Null()], {
      description: 'Template of the first message, e.g. "Hi {{firstName}}"',
    }),
    questions: Type.Array(Type.String()),
    openingVariants: Type.Array(Type.Object({ name: Type.String(), text: Type.String(), weight: Type.Number() }), {
      description: 'A/B variants of the opening (docs/analytics.md); empty when none',
    }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    notifications: Type.Array(Type.Object({ name: Type.String(), condition: Type.String() }), {
      description: 'Plain-English conditions the agent judges on each turn; a match notifies (docs/handoffs.md)',
    }),
  },
  { $id: 'CustomerProfile' },
);
export type ProfileView = Static<typeof CustomerProfile>;

const editable = {
  description: Type.Optional(Text(2000, 'What the profile is for')),
  instructions: Type.Optional(Text(20_000, 'Instructions for the AI agent')),
  openingMessage: Type.Optional(Text(2000, 'Template of the first message')),
  questions: Type.Optional(Questions),
  notifications: Type.Optional(
    Type.Array(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
          condition: Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S' }),
        },
        { additionalProperties: false },
      ),
      {
        maxItems: 20,
        description:
          'Plain-English notification conditions, e.g. {name: "Wants a demo", condition: "the lead asks for a demo"}',
      },
    ),
  ),
  openingVariants: Type.Optional(
    Type.Union([
      Type.Array(
        Type.Object(
          {
            name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_.-]+$' }),
            text: Type.String({ minLength: 1, maxLength: 2000 }),
            weight: Type.Number({ exclusiveMinimum: 0, maximum: 1000 }),
          },
          { additionalProperties: false },
        ),
        {
          maxItems: 20,
          description:
            'A/B variants of the opening: each lead gets one, by a hash of its id, in proportion to the weights; null or [] for none',
        },
      ),
      Type.Null(),
    ]),
  ),
};

export const CreateProfileBody = Type.Object({ name: ProfileName, ...editable }, { additionalProperties: false });
export type CreateProfileInput = Static<typeof CreateProfileBody>;

/** The name is the profile's key on every lead, so it cannot be changed: sending it is a 400. */
export const UpdateProfileBody = Type.Object(editable, { additionalProperties: false, minProperties: 1 });
export type UpdateProfileInput = Static<typeof UpdateProfileBody>;

export const ListProfilesReply = Type.Object({ profiles: Type.Array(Type.Ref(CustomerProfile)) });
