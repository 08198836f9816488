import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { Type, type TSchema } from '@sinclair/typebox';
import { describeValidationError } from '../../src/platform/http/validation-messages.js';

/** The sentence for `data` against `schema`, with ajv set up as the server sets it up (verbose: errors carry their schema). */
function sentence(schema: TSchema | object, data: unknown, part = 'body'): string {
  const validate = new Ajv({ verbose: true, strict: false, allErrors: false }).compile(schema);
  expect(validate(data)).toBe(false);
  return describeValidationError(validate.errors!, part);
}

describe('validation sentences from the schema that failed (unit)', () => {
  it('a union of literals lists its values; a nullable type says "or null"', () => {
    const s = Type.Object({
      channel: Type.Union([Type.Literal('sms'), Type.Literal('email')]),
      note: Type.Union([Type.String(), Type.Null()]),
    });
    expect(sentence(s, { channel: 'fax', note: null })).toBe('channel must be one of: sms, email');
    expect(sentence(s, { channel: 'sms', note: 3 })).toBe('note must be a string or null');
  });

  it('inside a nullable object, the deeper failure is the one named', () => {
    const s = Type.Object({ cap: Type.Union([Type.Object({ max: Type.Integer({ minimum: 1 }) }), Type.Null()]) });
    expect(sentence(s, { cap: { max: 0 } })).toBe('cap.max must be at least 1');
    expect(sentence(s, { cap: { max: 'x' } })).toBe('cap.max must be an integer');
  });

  it('a nullable string of the right type names its bound, not the union', () => {
    const s = Type.Object({ n: Type.Union([Type.String({ minLength: 1 }), Type.Null()]) });
    expect(sentence(s, { n: '' })).toBe('n must not be empty');
  });

  it("a schema's own errorMessage wins; a description words a pattern; a bare pattern is never echoed", () => {
    expect(
      sentence(Type.Object({ t: Type.String({ pattern: '^\\d\\d$', errorMessage: 'must be two digits, like 07' }) }), {
        t: 'x',
      }),
    ).toBe('t must be two digits, like 07');
    expect(
      sentence(Type.Object({ t: Type.String({ pattern: '^\\d\\d$', description: 'Two digits' }) }), { t: 'x' }),
    ).toBe('t must be two digits');
    expect(sentence(Type.Object({ t: Type.String({ pattern: '^\\d\\d$' }) }), { t: 'x' })).toBe(
      't is not in the accepted form',
    );
  });

  it('list items are named by index, lists of ids by what they hold', () => {
    const s = Type.Object({
      tagIds: Type.Array(Type.String(), { minItems: 1 }),
      days: Type.Optional(Type.Array(Type.Union([Type.Literal('mon'), Type.Literal('tue')]))),
    });
    expect(sentence(s, { tagIds: 'a' })).toBe('tagIds must be a list of tag ids');
    expect(sentence(s, { tagIds: [] })).toBe('tagIds must list at least one tag id');
    expect(sentence(s, { tagIds: ['a'], days: ['sun'] })).toBe('days.0 must be one of: mon, tue');
    expect(sentence(s, { tagIds: ['a'], days: 'mon' })).toBe('days must be a list of: mon, tue');
  });

  it('keys of a map, conditional fields, and query parameters', () => {
    const s = {
      type: 'object',
      properties: {
        steps: {
          type: 'object',
          propertyNames: { pattern: '^[1-9]\\d*$', description: 'Step numbers 1, 2, 3...' },
          additionalProperties: {
            type: 'object',
            properties: { channel: { enum: ['text', 'call'] }, voicemail: { type: 'boolean' } },
            if: { properties: { channel: { not: { const: 'call' } } } },
            then: { properties: { voicemail: { const: false } } },
          },
        },
      },
    };
    expect(sentence(s, { steps: { first: {} } })).toBe(
      'steps has a key that is not allowed: "first" (keys must be step numbers 1, 2, 3...)',
    );
    expect(sentence(s, { steps: { 1: { channel: 'text', voicemail: true } } })).toBe('steps.1.voicemail must be false');
    expect(sentence(Type.Object({ limit: Type.Integer({ maximum: 10 }) }), { limit: 11 }, 'querystring')).toBe(
      'limit must be at most 10',
    );
    expect(sentence(Type.Object({}, { minProperties: 1 }), {})).toBe('body must have at least 1 field');
  });

  it("an unknown keyword never leaks the validator's text", () => {
    expect(sentence({ type: 'object', properties: { a: { not: { type: 'string' } } } }, { a: 'x' })).toBe(
      'a is not valid',
    );
  });
});
