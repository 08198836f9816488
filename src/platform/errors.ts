import { ERRORS, type ErrorCode, type ErrorParams, type ErrorStatus, errorMessage } from './error-catalogue.js';

/**
 * Domain errors. Services throw these; one error handler (platform/http/errors.ts)
 * maps them to a status and the contract's `{message}` body. A DomainError is
 * made from a code of the catalogue (platform/error-catalogue.ts), which fixes
 * its status and builds its message from the template: a code not in the
 * catalogue does not compile, and the texts the contract fixes (docs/contract.md)
 * are written there and nowhere else.
 */
export class DomainError<C extends ErrorCode = ErrorCode> extends Error {
  readonly status: ErrorStatus;
  readonly code: C;
  constructor(code: C, ...params: ErrorParams<C>) {
    // A client's mistake is answered, not debugged: capturing a stack trace here was 7 % of a 404's CPU.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(errorMessage(code, ...params));
    Error.stackTraceLimit = limit;
    this.status = ERRORS[code].status;
    this.code = code;
  }
}

export class NotFound extends DomainError<'not_found'> {
  constructor(resource: string, key: 'id' | 'name' | 'phone', value: string) {
    super('not_found', { resource, key, value });
  }
}

export const leadNotFound = (id: string) => new NotFound('Lead', 'id', id);

/** The one bare 403 of the API (docs/contract.md): the log, not the answer, says why. */
export class Forbidden extends DomainError<'forbidden'> {
  constructor() {
    super('forbidden');
  }
}

/** A 429 carries its Retry-After. */
export class TooManyRequests extends DomainError<'rate_limited'> {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, signIn = false) {
    super('rate_limited', signIn ? { seconds: retryAfterSeconds } : undefined);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
