import { Readable } from 'node:stream';
import { parse, type Parser } from 'csv-parse';

/** A record of the file; `row` counts records as a spreadsheet numbers its rows (the header is row 1). */
export interface CsvRecord {
  row: number;
  values: string[];
}

const CANDIDATES = [',', ';', '\t'] as const;
/** The longest header line, in bytes: a longer one is refused before the CSV parser would spend seconds on it. */
export const HEAD_LIMIT = 1024 * 1024;
/** A record larger than this is refused (a missing closing quote would otherwise swallow the file into memory). */
export const MAX_RECORD_BYTES = 1024 * 1024;

/**
 * The delimiter of the header line: whichever of `,` `;` tab occurs most
 * outside quotes (`,` on a tie or none). Excel writes `;` where the decimal
 * separator is a comma, and tab for "Unicode text".
 */
export function detectDelimiter(head: string): string {
  const counts = new Map<string, number>(CANDIDATES.map((c) => [c, 0]));
  let quoted = false;
  for (const ch of head) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    // biome-ignore lint/style/noNonNullAssertion: counts.has(ch) was checked in the same condition
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best: string = ',';
  // biome-ignore lint/style/noNonNullAssertion: counts holds every CANDIDATE, and best is ',' or one of them
  for (const c of CANDIDATES) if (counts.get(c)! > counts.get(best)!) best = c;
  return best;
}

/** The text encodings an import reads. */
export const CSV_ENCODINGS = ['utf-8', 'utf-16le', 'utf-16be', 'windows-1252'] as const;
export type CsvEncoding = (typeof CSV_ENCODINGS)[number];

/** A record over the limit: `row` is the spreadsheet row it starts at (1 is the header line). */
export class CsvRecordTooLongError extends Error {
  constructor(
    readonly row: number,
    limit = `${MAX_RECORD_BYTES / (1024 * 1024)} MiB (${MAX_RECORD_BYTES} characters)`,
  ) {
    super(`row ${row} is longer than ${limit}; a quote that is never closed makes one row of the rest of the file`);
  }
}

/** A file that is not in the encoding it is read in: the import stops with this (the rows before it stay committed). */
export class CsvEncodingError extends Error {}

const BOMS: [number[], CsvEncoding][] = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xff, 0xfe], 'utf-16le'],
  [[0xfe, 0xff], 'utf-16be'],
];

/**
 * The encoding of a file from its first bytes: a byte order mark decides
 * (Excel's "CSV UTF-8" has one; its "Unicode text" is UTF-16 LE with one);
 * else the one asked for; else UTF-8 when the first bytes are valid UTF-8,
 * and Windows-1252 when they are not (Excel's plain "CSV" on Windows, where
 * an accented name is one byte that UTF-8 cannot read).
 */
export function detectEncoding(head: Buffer, requested?: CsvEncoding): { encoding: CsvEncoding; bom: number } {
  for (const [bytes, encoding] of BOMS) {
    if (head.length >= bytes.length && bytes.every((b, i) => head[i] === b)) return { encoding, bom: bytes.length };
  }
  if (requested) return { encoding: requested, bom: 0 };
  try {
    // stream: a character cut at the end of the head is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return { encoding: 'utf-8', bom: 0 };
  } catch {
    return { encoding: 'windows-1252', bom: 0 };
  }
}

/**
 * Records of a CSV stream, read as it arrives (never the whole file): the
 * first chunks up to the end of the header line are held to choose the
 * encoding and the delimiter, then everything is decoded and flows through
 * csv-parse with backpressure. UTF-8 (with or without a BOM), UTF-16 with a
 * BOM, Windows-1252 (detected, or asked for); a byte UTF-8 cannot read later
 * in a file read as UTF-8 stops the import with CsvEncodingError, naming the
 * way out (it is never replaced by a question mark in a lead's name). CRLF
 * or LF; blank lines skipped; rows with fewer or more values than the header
 * are kept (the row check decides).
 */
export async function* csvRecords(
  source: AsyncIterable<Buffer | string>,
  onBytes: (n: number) => void = () => {},
  requested?: CsvEncoding,
): AsyncGenerator<CsvRecord> {
  const input = source[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes <= HEAD_LIMIT) {
    const next = await input.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    head.push(chunk);
    headBytes += chunk.length;
    onBytes(chunk.length);
    if (chunk.includes(0x0a) || chunk.includes(0x0d)) break;
  }
  const firstChunks = Buffer.concat(head);
  const { encoding, bom } = detectEncoding(firstChunks, requested);
  // csv-parse takes about ten seconds of the event loop to reach its own limit on a megabyte without a line break.
  const ends = [firstChunks.indexOf(0x0a), firstChunks.indexOf(0x0d)].filter((i) => i >= 0);
  const headerBytes = (ends.length > 0 ? Math.min(...ends) : ended ? firstChunks.length : Infinity) - bom;
  if (headerBytes > HEAD_LIMIT) {
    await input.return?.();
    throw new CsvRecordTooLongError(1, `${HEAD_LIMIT / (1024 * 1024)} MiB (${HEAD_LIMIT} bytes)`);
  }
  const decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
  let offset = 0;
  const decode = (chunk: Buffer, last = false): string => {
    try {
      const text = decoder.decode(chunk, { stream: !last });
      offset += chunk.length;
      return text;
    } catch {
      throw new CsvEncodingError(
        `the file is not valid ${encoding} (within bytes ${offset + 1}-${offset + chunk.length}): ` +
          'save it as "CSV UTF-8" or give its encoding (--encoding / encoding=windows-1252, utf-16le, utf-16be); the rows before it are imported, and importing the file again is safe',
      );
    }
  };
  const firstText = decode(firstChunks.subarray(bom));
  const delimiter = detectDelimiter(firstText);
  async function* all() {
    if (firstText.length > 0) yield firstText;
    if (!ended) {
      for (;;) {
        const next = await input.next();
        if (next.done) break;
        const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
        onBytes(chunk.length);
        const text = decode(chunk);
        if (text.length > 0) yield text;
      }
    }
    const rest = decode(Buffer.alloc(0), true);
    if (rest.length > 0) yield rest;
  }
  const parser: Parser = parse({
    delimiter,
    relax_column_count: true,
    // A quote inside an unquoted field (`5" screen`) is kept as a character, as spreadsheets write it.
    relax_quotes: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  const stream = Readable.from(all(), { objectMode: false, encoding: 'utf8' });
  stream.on('error', (err) => parser.destroy(err));
  stream.pipe(parser);
  let row = 0;
  try {
    try {
      for await (const values of parser as AsyncIterable<string[]>) {
        row += 1;
        // A line of only delimiters (Excel pads trailing rows) is as empty as a blank line.
        if (values.every((v) => v.trim() === '')) continue;
        yield { row, values };
      }
    } catch (err) {
      // csv-parse's own error quotes the record's first characters (a lead's data): the row number says enough.
      if ((err as { code?: unknown }).code === 'CSV_MAX_RECORD_SIZE') throw new CsvRecordTooLongError(row + 1);
      throw err;
    }
  } finally {
    // A reader that stops early (only the header was wanted) must not leave the source open.
    stream.destroy();
    await input.return?.();
  }
}
