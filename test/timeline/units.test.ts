import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeTimelineCursor,
  encodeTimelineCursor,
  parseSince,
  parseTypes,
} from '../../src/timeline/timeline.service.js';

const bad = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err as { status?: number; message: string };
  }
  throw new Error('did not throw');
};

describe('timeline query parsing', () => {
  it('since: ISO 8601 instants to the stored form; missing, malformed or impossible ones refused with a sentence', () => {
    expect(parseSince('2026-05-14T15:00:00Z')).toBe('2026-05-14T15:00:00.000Z');
    expect(parseSince('2026-05-14T17:00:00+02:00')).toBe('2026-05-14T15:00:00.000Z');
    expect(parseSince('2026-05-14T15:00:00.123456Z')).toBe('2026-05-14T15:00:00.123Z');
    expect(parseSince('2026-05-14')).toBe('2026-05-14T00:00:00.000Z');
    expect(parseSince('2024-02-29T00:00:00Z')).toBe('2024-02-29T00:00:00.000Z');
    for (const missing of [undefined, '', '  '])
      expect(bad(() => parseSince(missing)).message).toMatch(/^since is required/);
    for (const wrong of [
      'yesterday',
      '1715698800',
      '2026-13-01T00:00:00Z',
      '2026-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-05-00T00:00:00Z',
      '14/05/2026',
    ]) {
      const e = bad(() => parseSince(wrong));
      expect(e.status, wrong).toBe(400);
      expect(e.message, wrong).toBe('since must be an ISO 8601 timestamp such as 2026-05-14T15:00:00Z');
    }
  });

  it('types: any case, spaces around commas; unknown or empty refused naming the allowed ones', () => {
    expect([...parseTypes(undefined)]).toEqual([
      'MESSAGE',
      'CALL',
      'EMAIL',
      'TOOL_CALL',
      'CUSTOM',
      'COMPLIANCE_BLOCKED',
    ]);
    expect([...parseTypes('MESSAGE,CALL')]).toEqual(['MESSAGE', 'CALL']);
    expect([...parseTypes(' message , compliance_blocked ,')]).toEqual(['MESSAGE', 'COMPLIANCE_BLOCKED']);
    for (const wrong of ['', ',', 'SMS', 'MESSAGE,VOICE']) {
      expect(bad(() => parseTypes(wrong)).message, wrong).toBe(
        'types must be a comma-separated list of: MESSAGE, CALL, EMAIL, TOOL_CALL, CUSTOM, COMPLIANCE_BLOCKED',
      );
    }
  });

  it('cursors round-trip, and anything else is "nextToken is not a valid cursor"', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }),
        fc.uuid(),
        (d, id) => {
          const c = { at: d.toISOString(), id };
          expect(decodeTimelineCursor(encodeTimelineCursor(c))).toEqual(c);
        },
      ),
      { seed: 20261123 },
    );
    expect(decodeTimelineCursor(undefined)).toBeUndefined();
    expect(decodeTimelineCursor('')).toBeUndefined();
    const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
    for (const token of [
      'not-a-cursor',
      b64('{'),
      b64({ at: 1 }),
      b64(['2026-01-01T00:00:00.000Z']),
      b64(['2026-01-01', '01a20835-7859-7317-8a95-34bee7a9992d']),
      b64(['2026-01-01T00:00:00.000Z', 'x']),
      b64([1, 2]),
      b64(['2026-01-01T00:00:00.000Z', '01a20835-7859-7317-8a95-34bee7a9992d', 3]),
    ]) {
      const e = bad(() => decodeTimelineCursor(token));
      expect(e.status, token).toBe(400);
      expect(e.message).toBe('nextToken is not a valid cursor');
    }
  });
});
