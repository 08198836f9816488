import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, TooManyRequests } from '../errors.js';
import { lingerOnClose } from './linger.js';
import { describeValidationError } from './validation.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route whose contract fixes the text of its 400 (unsubscribe) sets it here. */
    badRequestMessage?: string;
  }
}

/** Fastify's own client errors, mapped to the contract's one-field body. */
const frameworkErrors: Record<string, { status: number; message: string; code: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, message: 'Payload Too Large', code: 'body_too_large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    message: 'Unsupported Media Type: send Content-Type: application/json',
    code: 'unsupported_media_type',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    status: 400,
    message: 'Content-Length does not match the body',
    code: 'bad_content_length',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, message: 'Body is not valid JSON', code: 'invalid_json' },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, message: 'Body is not valid JSON', code: 'invalid_json' },
};

function send(reply: FastifyReply, status: number, message: string, code?: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(code ? { message, code } : { message });
}

/**
 * The single place where anything thrown becomes an HTTP answer. A 500 says
 * only "Internal Server Error"; the cause goes to the log with the request id.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // Answered before the body was read (413 above all): the client must still get to read the answer.
    if (!request.raw.complete) lingerOnClose(request.raw);
    // Fastify parses a body even on its way to the not-found handler: a path (or method) no route takes is a 404, whatever it carried.
    if (request.is404) return send(reply, 404, 'Not Found', 'not_found');
    const contractMessage = request.routeOptions?.config?.badRequestMessage;
    if (err instanceof DomainError) {
      if (err instanceof TooManyRequests) reply.header('retry-after', String(err.retryAfterSeconds));
      const message =
        err.status === 400 && contractMessage && err.code === 'invalid_json' ? contractMessage : err.message;
      return send(reply, err.status, message, err.code);
    }
    if (err.validation) {
      const described = describeValidationError(err.validation as never, err.validationContext);
      // An unknown field is named even where the contract fixes the text: a typo must be seen, not read as "channels omitted".
      const unknown = (err.validation as { keyword: string }[]).some((e) => e.keyword === 'additionalProperties');
      const message = contractMessage ? (unknown ? `${described}: ${contractMessage}` : contractMessage) : described;
      return send(reply, 400, message, 'invalid_request');
    }
    const known = err.code ? frameworkErrors[err.code] : undefined;
    if (known) {
      const message = known.status === 400 && contractMessage ? contractMessage : known.message;
      return send(reply, known.status, message, known.code);
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return send(
        reply,
        err.statusCode,
        contractMessage && err.statusCode === 400 ? contractMessage : 'Bad Request',
        'bad_request',
      );
    }
    request.log.error({ err }, 'unhandled error');
    // docs/contract.md: a 500 is always exactly {"message":"Internal Server Error"}.
    return send(reply, 500, 'Internal Server Error');
  });

  app.setNotFoundHandler((_request, reply) => send(reply, 404, 'Not Found', 'not_found'));
}

/**
 * The longest path parameter the router takes (SECURITY.md); a longer one is
 * 414 before any route runs. Unsubscribe tokens bound to their address are 139
 * characters (channels/unsubscribe-token.ts), so Fastify's default of 100 is too short.
 */
export const MAX_PATH_PARAM_LENGTH = 200;

/**
 * Fastify's `frameworkErrors` option: a URL that cannot be routed (bad
 * percent-encoding, an over-long path parameter) would otherwise get Fastify's
 * own body, which echoes the URL; it gets the contract's shape instead.
 */
export function answerFrameworkError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH')
    send(
      reply,
      414,
      `URI Too Long: a path parameter is longer than ${MAX_PATH_PARAM_LENGTH} characters`,
      'uri_too_long',
    );
  else send(reply, 400, 'Bad Request: the URL is not valid', 'bad_url');
}
