import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countSegments, encodingOf } from '../../src/sending-numbers/segments.js';

const GSM_BASIC_SAMPLE = [
  ...'@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCXYZÄÖÑÜ§¿abcxyzäöñüà\n\r',
];
const GSM_EXT = [...'^{}\\[~]|€\f'];
const gsmBasic = fc.array(fc.constantFrom(...GSM_BASIC_SAMPLE), { maxLength: 1200 }).map((a) => a.join(''));
const gsmAny = fc.array(fc.constantFrom(...GSM_BASIC_SAMPLE, ...GSM_EXT), { maxLength: 1200 }).map((a) => a.join(''));
/** BMP characters outside GSM-7 (Cyrillic, CJK, accents GSM lacks): one UTF-16 unit each. */
const ucsBmp = fc
  .array(fc.constantFrom(...'жЖшЩ中文字áíóúâêôçЁ'), { minLength: 1, maxLength: 600 })
  .map((a) => a.join(''));
const EMOJI = ['😀', '🚀', '👍', '🎉'];

describe('SMS segments (Twilio documented rules)', () => {
  it('GSM-7: 160 characters are one segment, 161 are two (153 + 8)', () => {
    expect(countSegments('a'.repeat(160))).toEqual({ encoding: 'GSM-7', segments: 1, units: 160 });
    expect(countSegments('a'.repeat(161))).toEqual({ encoding: 'GSM-7', segments: 2, units: 161 });
    expect(countSegments('a'.repeat(306)).segments).toBe(2);
    expect(countSegments('a'.repeat(307)).segments).toBe(3);
  });

  it('the 1600-character maximum body is 11 GSM-7 segments', () => {
    expect(countSegments('x'.repeat(1600)).segments).toBe(11);
  });

  it('UCS-2: 70 characters are one segment, 71 are two (67 + 4)', () => {
    expect(countSegments('ж'.repeat(70))).toEqual({ encoding: 'UCS-2', segments: 1, units: 70 });
    expect(countSegments('ж'.repeat(71))).toEqual({ encoding: 'UCS-2', segments: 2, units: 71 });
    expect(countSegments('ж'.repeat(134)).segments).toBe(2);
    expect(countSegments('ж'.repeat(135)).segments).toBe(3);
  });

  it('extension characters cost two septets: 80 € fill one segment, 81 need two', () => {
    expect(countSegments('€'.repeat(80))).toEqual({ encoding: 'GSM-7', segments: 1, units: 160 });
    expect(countSegments('€'.repeat(81)).segments).toBe(2);
    for (const ch of GSM_EXT) expect(countSegments(ch)).toEqual({ encoding: 'GSM-7', segments: 1, units: 2 });
  });

  it('an escape pair is never split: 152 septets then a € starts the next segment', () => {
    // 152 + 2 = 154 > 153: the € goes whole into segment 2, then 7 more characters fit.
    expect(countSegments(`${'a'.repeat(152)}€${'a'.repeat(7)}`).segments).toBe(2);
  });

  it('one emoji makes the whole message UCS-2 and counts as two units', () => {
    const text = `${'a'.repeat(159)}😀`;
    expect(countSegments('a'.repeat(159)).segments).toBe(1);
    expect(countSegments(text)).toEqual({ encoding: 'UCS-2', segments: 3, units: 161 });
    expect(countSegments(`${'a'.repeat(68)}😀`)).toEqual({ encoding: 'UCS-2', segments: 1, units: 70 });
    expect(countSegments(`${'a'.repeat(69)}😀`).segments).toBe(2);
  });

  it('a surrogate pair is never split across segments', () => {
    // 66 units + an emoji (2) do not fit in 67: the emoji opens segment 2.
    expect(countSegments(`${'ж'.repeat(66)}😀${'ж'.repeat(10)}`).segments).toBe(2);
    expect(countSegments(`${'ж'.repeat(66)}😀${'ж'.repeat(66)}`).segments).toBe(3);
  });

  it('an empty body is one segment', () => {
    expect(countSegments('')).toEqual({ encoding: 'GSM-7', segments: 1, units: 0 });
  });

  it('property: GSM-7 text without extension characters costs 1 segment up to 160, else ceil(n / 153)', () => {
    fc.assert(
      fc.property(gsmBasic, (s) => {
        const n = [...s].length;
        expect(encodingOf(s)).toBe('GSM-7');
        expect(countSegments(s).segments).toBe(n <= 160 ? 1 : Math.ceil(n / 153));
      }),
    );
  });

  it('property: BMP text outside GSM-7 costs 1 segment up to 70 units, else ceil(n / 67)', () => {
    fc.assert(
      fc.property(gsmBasic, ucsBmp, (a, b) => {
        const s = a + b;
        expect(encodingOf(s)).toBe('UCS-2');
        expect(countSegments(s).segments).toBe(s.length <= 70 ? 1 : Math.ceil(s.length / 67));
      }),
    );
  });

  it('property: adding one emoji anywhere makes a GSM-7 text UCS-2 and never cheaper', () => {
    fc.assert(
      fc.property(gsmAny, fc.nat(), fc.constantFrom(...EMOJI), (s, at, emoji) => {
        const chars = [...s];
        const i = at % (chars.length + 1);
        const withEmoji = [...chars.slice(0, i), emoji, ...chars.slice(i)].join('');
        const count = countSegments(withEmoji);
        expect(count.encoding).toBe('UCS-2');
        expect(count.units).toBe(withEmoji.length);
        expect(count.segments).toBeGreaterThanOrEqual(countSegments(s).segments);
      }),
    );
  });

  it('property: appending never lowers the count, and segments are full but for characters that did not fit whole', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 400 }),
        fc.string({ unit: 'grapheme', maxLength: 50 }),
        (a, b) => {
          const c = countSegments(a + b);
          if (encodingOf(a) === c.encoding) expect(c.segments).toBeGreaterThanOrEqual(countSegments(a).segments);
          const [single, part, widest] = c.encoding === 'GSM-7' ? [160, 153, 2] : [70, 67, 2];
          if (c.units <= single) expect(c.segments).toBe(1);
          else {
            expect(c.segments).toBeGreaterThanOrEqual(Math.ceil(c.units / part));
            expect(c.segments).toBeLessThanOrEqual(Math.ceil(c.units / (part - widest + 1)));
          }
        },
      ),
    );
  });
});
