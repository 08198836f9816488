import { describe, expect, it } from 'vitest';
import { ERRORS, type ErrorCode, errorMessage } from '../../src/platform/error-catalogue.js';
import { DomainError, NotFound } from '../../src/platform/errors.js';

describe('the error catalogue', () => {
  it('makes a DomainError from a code: the status and the text come from the catalogue', () => {
    const err = new DomainError('duplicate_phone', { phone: '+14155550100' });
    expect(err.status).toBe(409);
    expect(err.code).toBe('duplicate_phone');
    expect(err.message).toBe('A lead with phone +14155550100 already exists');
    expect(new NotFound('Lead', 'id', 'x').message).toBe('Resource not found: Lead with id x');
    expect(new DomainError('not_found').message).toBe('Not Found');
  });

  it('names every code in lower snake case, with a client-error status and a sentence saying when', () => {
    for (const [code, entry] of Object.entries(ERRORS)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.status).toBeLessThan(500);
      expect(entry.when.length, code).toBeGreaterThan(10);
    }
  });

  it('refuses, at the typecheck, a code that is not in the catalogue or a template without its values', () => {
    const made = () => {
      // @ts-expect-error: 'lead_gone' is no code of the catalogue (npm run typecheck fails without this line's directive).
      new DomainError('lead_gone');
      // @ts-expect-error: duplicate_phone's template needs the phone.
      new DomainError('duplicate_phone');
      // @ts-expect-error: a fixed text takes no values.
      new DomainError('forbidden', { detail: 'why' });
      // @ts-expect-error: the status is the catalogue's, not the throw site's.
      new DomainError(404, 'Lead not found', 'not_found');
    };
    expect(made).toBeTypeOf('function');
    const code: ErrorCode = 'invalid_cursor';
    expect(errorMessage(code)).toBe('nextToken is not a valid cursor');
  });
});
