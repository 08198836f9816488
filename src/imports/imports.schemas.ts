import { Type, type Static } from '@sinclair/typebox';
import { CSV_ENCODINGS } from './csv-source.js';

export const ImportIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const StartImportQuery = Type.Object(
  {
    profile: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Customer profile of the new leads (default: default)',
      }),
    ),
    onDuplicate: Type.Optional(
      Type.Union([Type.Literal('skip'), Type.Literal('update')], {
        description: 'A row matching an existing lead: update it (default) or leave it',
      }),
    ),
    startConversations: Type.Optional(
      Type.Boolean({
        description: "Schedule each new (or never-greeted) lead's opening message, through the compliance gate",
      }),
    ),
    dryRun: Type.Optional(Type.Boolean({ description: 'Check and count only: no lead, message or event is written' })),
    invalidFields: Type.Optional(
      Type.Union([Type.Literal('drop'), Type.Literal('reject')], {
        description:
          'A row with a valid address and a bad field (email, phone or timeZone): import the lead without the field and list the row with a warning (drop, the default), or reject the row',
      }),
    ),
    map: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 4000,
        description: 'Header=field pairs, e.g. "Mobile=phone,First Name=firstName" (field, info:KEY or - to ignore)',
      }),
    ),
    encoding: Type.Optional(
      Type.Union(
        CSV_ENCODINGS.map((e) => Type.Literal(e)),
        {
          description:
            'Text encoding of a file without a byte order mark (default: utf-8, or windows-1252 when the start of the file is not UTF-8)',
        },
      ),
    ),
  },
  { additionalProperties: false },
);
export type StartImportInput = Static<typeof StartImportQuery>;

export const ImportView = Type.Object({
  id: Type.String({ format: 'uuid' }),
  status: Type.Union([Type.Literal('running'), Type.Literal('completed'), Type.Literal('failed')]),
  source: Type.String({ description: 'api or cli' }),
  options: Type.Object({
    profile: Type.String(),
    onDuplicate: Type.String(),
    startConversations: Type.Boolean(),
    dryRun: Type.Boolean(),
    invalidFields: Type.Union([Type.Literal('drop'), Type.Literal('reject')]),
    map: Type.Union([Type.String(), Type.Null()]),
    encoding: Type.Union([Type.String(), Type.Null()], { description: 'The encoding asked for, if any' }),
  }),
  total: Type.Integer({ description: 'Rows read and committed so far (header excluded)' }),
  created: Type.Integer(),
  updated: Type.Integer(),
  skipped: Type.Integer({
    description: 'Rows matching a lead that were left as they were (policy skip, or nothing to change)',
  }),
  rejected: Type.Integer(),
  warned: Type.Integer({
    description: 'Rows imported without a field that was not valid; the rejects file lists them with their warnings',
  }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why a failed import stopped' }),
  startedAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type ImportViewType = Static<typeof ImportView>;

/** The rejects answer is text/csv (streamed); errors stay JSON like everywhere else. */
export const REJECTS_CSV_ANSWER = {
  description:
    "CSV: the file's own header plus reason and warnings columns, then each rejected row as read with why it was rejected, and each row imported without a bad field with the fields left out",
  content: { 'text/csv': { schema: Type.String() } },
};
