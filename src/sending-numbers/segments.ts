/**
 * How many SMS segments a text costs, the unit carriers pace and bill by.
 *
 * No well-kept calculator was installed (the npm package sms-segments-calculator
 * exists but we do not add dependencies here), so this is written out from the
 * GSM 03.38 tables and Twilio's documented rules:
 * - GSM-7 when every character is in the basic table or its extension table:
 *   160 septets in one segment, 153 per segment when split (7 septets go to the
 *   concatenation header); an extension character (^{}\[~]|€ and form feed)
 *   costs two septets (escape + character) and is never split across segments.
 * - Otherwise UCS-2 (UTF-16): 70 code units in one segment, 67 when split; a
 *   character outside the Basic Multilingual Plane (most emoji) is a surrogate
 *   pair, two units, never split across segments. One such character turns the
 *   whole message into UCS-2: a 160-character text with one emoji costs 3.
 */

const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '^{}\\[~]|€\f';

const basic = new Set(GSM_BASIC);
const extension = new Set(GSM_EXTENSION);

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SegmentCount {
  encoding: SmsEncoding;
  segments: number;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2) of the whole text. */
  units: number;
}

const LIMITS: Record<SmsEncoding, { single: number; part: number }> = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
};

export function encodingOf(text: string): SmsEncoding {
  for (const ch of text) if (!basic.has(ch) && !extension.has(ch)) return 'UCS-2';
  return 'GSM-7';
}

/** The cost of each character in the encoding's units (code points, so a surrogate pair is one item of 2). */
function unitsOf(text: string, encoding: SmsEncoding): number[] {
  const units: number[] = [];
  for (const ch of text) units.push(encoding === 'GSM-7' ? (extension.has(ch) ? 2 : 1) : ch.length);
  return units;
}

/** Segments of an SMS body; an empty body still goes out as one segment. */
export function countSegments(text: string): SegmentCount {
  const encoding = encodingOf(text);
  const units = unitsOf(text, encoding);
  const total = units.reduce((a, b) => a + b, 0);
  const { single, part } = LIMITS[encoding];
  if (total <= single) return { encoding, segments: 1, units: total };
  // Filled greedily: a character that does not fit whole starts the next segment.
  let segments = 1;
  let used = 0;
  for (const u of units) {
    if (used + u > part) {
      segments += 1;
      used = 0;
    }
    used += u;
  }
  return { encoding, segments, units: total };
}
