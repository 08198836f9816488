import { Type, type Static } from '@sinclair/typebox';
import { AdditionalInfo } from '../lead-records/additional-info.js';

export const AT_LEAST_ONE = 'At least one of context, additionalInfo, command is required';

/** Every field is optional on its own; the service requires at least one (with the text above). */
export const AddContextBody = Type.Object(
  {
    context: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 10_000,
        description: 'Free text about the lead; the AI reads it on its next turn',
      }),
    ),
    additionalInfo: Type.Optional(AdditionalInfo),
    command: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: 'An instruction for the AI, carried out on its next turn',
      }),
    ),
  },
  { additionalProperties: false },
);
export type AddContextInput = Static<typeof AddContextBody>;

export const NoteKind = Type.Union([Type.Literal('context'), Type.Literal('command')]);

export const LeadNote = Type.Object({
  id: Type.String({ format: 'uuid' }),
  kind: NoteKind,
  text: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  consumedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the AI took a command into account; null while it is pending (context notes stay readable)',
  }),
});
export type LeadNoteView = Static<typeof LeadNote>;

export const ListNotesReply = Type.Object({ notes: Type.Array(LeadNote, { description: 'Oldest first' }) });
