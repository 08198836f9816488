import { describe, expect, it } from 'vitest';
import { classify, isPermanent, TWILIO_ERROR_CODES } from '../../src/deliverability/error-codes.js';

describe('the provider error code table', () => {
  it('classes the codes of issue 31 as it says, each with its Twilio error page', () => {
    const cls = (code: string) => classify({ provider: 'twilio', code }).class;
    expect(cls('21610')).toBe('opted_out');
    for (const code of ['21211', '21614', '30005']) expect(cls(code)).toBe('invalid');
    for (const code of ['30003', '30006', '21612']) expect(cls(code)).toBe('unreachable');
    expect(cls('30007')).toBe('filtered');
    for (const code of ['30032', '30034']) expect(cls(code)).toBe('unregistered_sender');
    for (const code of ['30001', '20429', '21611', '30022']) expect(cls(code)).toBe('transient');
    expect(cls('99999')).toBe('unknown');
    expect(classify({ provider: 'twilio', code: ' 30007 ' }).key).toBe('twilio:30007');
    for (const e of TWILIO_ERROR_CODES) expect(e.source).toBe(`https://www.twilio.com/docs/api/errors/${e.code}`);
    expect(new Set(TWILIO_ERROR_CODES.map((e) => e.code)).size).toBe(TWILIO_ERROR_CODES.length);
  });

  it('permanent classes are never retried; transient and unknown are left to the retry rules', () => {
    expect(
      ['opted_out', 'invalid', 'unreachable', 'filtered', 'unregistered_sender'].every((c) => isPermanent(c as never)),
    ).toBe(true);
    expect(isPermanent('transient')).toBe(false);
    expect(isPermanent('unknown')).toBe(false);
  });

  it('SMTP: 5xx and DSN 5.x.x are hard bounces, 4xx and 4.x.x soft ones', () => {
    const smtp = (code: string) => classify({ provider: 'smtp', code });
    expect(smtp('550')).toMatchObject({ class: 'invalid', key: 'smtp:550', title: 'hard bounce' });
    expect(smtp('5.1.1').class).toBe('invalid');
    expect(smtp('452')).toMatchObject({ class: 'transient', title: 'soft bounce' });
    expect(smtp('4.2.2').class).toBe('transient');
    expect(smtp('250').class).toBe('unknown');
  });
});
