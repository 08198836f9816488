import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TString } from '@sinclair/typebox';
import { Readable } from 'node:stream';
import type { Deps } from '../platform/deps.js';
import { DomainError } from '../platform/errors.js';
import { IDEMPOTENCY_HEADER } from '../platform/http/idempotency.js';
import { withErrors } from '../platform/http/schemas.js';
import { ImportIdParams, ImportView, REJECTS_CSV_ANSWER, StartImportQuery } from './imports.schemas.js';
import { getImport, rejectsCsv, startImport } from './imports.service.js';

class NotCsv extends DomainError<'unsupported_media_type'> {
  constructor() {
    super('unsupported_media_type', { expected: 'csv' });
  }
}

export const importRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['imports'];
    // The upload is handed through as a stream (this plugin only): the service spools it to disk under its own limit.
    app.addContentTypeParser('text/csv', (_req, payload, done) => done(null, payload));

    app.post(
      '/imports',
      {
        schema: {
          tags,
          summary:
            'Import leads from a CSV file (the body, Content-Type text/csv); runs in the background, see GET /v1/imports/{id}',
          querystring: StartImportQuery,
          response: withErrors(
            { 202: ImportView },
            'invalid_map',
            'invalid_encoding',
            'header_too_long',
            'empty_file',
            'idempotency_not_supported',
          ),
        },
        // The body is the file: a JSON one is a 415, not a list of unknown fields.
        config: { ownBodyFormat: true },
        // Idempotency keys hash the request body, and this body is a stream read once. Re-sending a file is safe by itself.
        preValidation: async (req) => {
          if (req.headers[IDEMPOTENCY_HEADER] !== undefined) throw new DomainError('idempotency_not_supported');
        },
      },
      async (req, reply) => {
        if (!(req.body instanceof Readable)) throw new NotCsv();
        try {
          return reply.code(202).send(await startImport(deps, req.auth.organizationId, req.body, req.query));
        } catch (err) {
          // Refused mid-upload: the rest of the body is never read, so the connection cannot carry another request.
          if (err instanceof DomainError && err.status === 413) reply.header('connection', 'close');
          throw err;
        }
      },
    );

    app.get(
      '/imports/:id',
      {
        schema: {
          tags,
          summary: "An import's state and counts",
          params: ImportIdParams,
          response: withErrors({ 200: ImportView }),
        },
      },
      async (req) => getImport(deps, req.auth.organizationId, req.params.id),
    );

    app.get(
      '/imports/:id/rejects',
      {
        schema: {
          tags,
          summary: "An import's rejected rows as CSV: the file's columns plus reason",
          params: ImportIdParams,
          response: withErrors({ 200: REJECTS_CSV_ANSWER as unknown as TString }),
        },
      },
      async (req, reply) => {
        const csv = await rejectsCsv(deps, req.auth.organizationId, req.params.id);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="import-${req.params.id}-rejects.csv"`)
          .send(csv);
      },
    );
  };
