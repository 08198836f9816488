import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, type ErrorCode, type PlainErrorCode, errorMessage } from '../error-catalogue.js';
import { DomainError, TooManyRequests } from '../errors.js';
import { lingerOnClose } from './linger.js';
import { describeValidationError } from './validation.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route whose contract fixes the text of its 400 (unsubscribe) sets it here. */
    badRequestMessage?: string;
  }
}

/** Fastify's own client errors, mapped to codes of the catalogue (their status and plain text come from it). */
const frameworkErrors: Record<string, PlainErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'body_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_content_length',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
};

/** An answer no DomainError carries: the code's status and its plain text. */
const sendPlain = (reply: FastifyReply, code: PlainErrorCode) =>
  send(reply, ERRORS[code].status, errorMessage(code), code);

function send(reply: FastifyReply, status: number, message: string, code?: ErrorCode): FastifyReply {
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
    if (request.is404) return sendPlain(reply, 'not_found');
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
      const { status } = ERRORS[known];
      return send(reply, status, status === 400 && contractMessage ? contractMessage : errorMessage(known), known);
    }
    if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      return send(
        reply,
        err.statusCode,
        contractMessage && err.statusCode === 400 ? contractMessage : errorMessage('bad_request'),
        'bad_request',
      );
    }
    request.log.error({ err }, 'unhandled error');
    // docs/contract.md: a 500 is always exactly {"message":"Internal Server Error"}.
    return send(reply, 500, 'Internal Server Error');
  });

  app.setNotFoundHandler((_request, reply) => sendPlain(reply, 'not_found'));
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
    send(reply, 414, errorMessage('uri_too_long', { max: MAX_PATH_PARAM_LENGTH }), 'uri_too_long');
  else sendPlain(reply, 'bad_url');
}
