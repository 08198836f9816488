/**
 * Domain errors. Services throw these; one error handler (platform/http/errors.ts)
 * maps them to a status and the contract's `{message}` body. The message texts
 * that the contract fixes (docs/contract.md) are built here and nowhere else.
 */
export class DomainError extends Error {
  readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429;
  readonly code: string;
  constructor(status: DomainError['status'], message: string, code: string) {
    // A client's mistake is answered, not debugged: capturing a stack trace here was 7 % of a 404's CPU.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.status = status;
    this.code = code;
  }
}

export class NotFound extends DomainError {
  constructor(resource: string, key: 'id' | 'name' | 'phone', value: string) {
    super(404, `Resource not found: ${resource} with ${key} ${value}`, 'not_found');
  }
}

export const leadNotFound = (id: string) => new NotFound('Lead', 'id', id);

export class BadRequest extends DomainError {
  constructor(message: string, code = 'bad_request') {
    super(400, message, code);
  }
}

export class Conflict extends DomainError {
  constructor(message: string, code = 'conflict') {
    super(409, message, code);
  }
}

export class Forbidden extends DomainError {
  constructor() {
    super(403, 'Forbidden', 'forbidden');
  }
}

export class TooManyRequests extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'Too Many Requests', 'rate_limited');
  }
}

export class UnprocessableEntity extends DomainError {
  constructor(message: string, code = 'unprocessable') {
    super(422, message, code);
  }
}

/** The console's session layer: no session, or one that ended (the /v1 API answers 403 for keys, as before). */
export class Unauthorized extends DomainError {
  constructor(message = 'Not signed in.', code = 'unauthorized') {
    super(401, message, code);
  }
}

/** A 403 that says why (a CSRF token, a role): the API-key 403 stays the one bare "Forbidden". */
export class ForbiddenBecause extends DomainError {
  constructor(message: string, code = 'forbidden') {
    super(403, message, code);
  }
}
