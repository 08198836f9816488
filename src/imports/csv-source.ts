import { Readable } from 'node:stream';
import { parse, type Parser } from 'csv-parse';

/** A record of the file; `row` counts records as a spreadsheet numbers its rows (the header is row 1). */
export interface CsvRecord {
  row: number;
  values: string[];
}

const CANDIDATES = [',', ';', '\t'] as const;
/** A header line longer than this is not a header: the delimiter is then the default. */
const HEAD_LIMIT = 1024 * 1024;
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
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best: string = ',';
  for (const c of CANDIDATES) if (counts.get(c)! > counts.get(best)!) best = c;
  return best;
}

/**
 * Records of a CSV stream, read as it arrives (never the whole file): the
 * first chunks up to the end of the header line are held to choose the
 * delimiter, then everything flows through csv-parse with backpressure.
 * UTF-8, with or without a BOM; CRLF or LF; blank lines skipped; rows with
 * fewer or more values than the header are kept (the row check decides).
 */
export async function* csvRecords(source: AsyncIterable<Buffer | string>, onBytes: (n: number) => void = () => {}): AsyncGenerator<CsvRecord> {
  const input = source[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let headBytes = 0;
  let ended = false;
  while (headBytes < HEAD_LIMIT) {
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
  const delimiter = detectDelimiter(firstChunks.toString('utf8').replace(/^\uFEFF/, ''));
  async function* all() {
    if (firstChunks.length > 0) yield firstChunks;
    if (ended) return;
    for (;;) {
      const next = await input.next();
      if (next.done) return;
      const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
      onBytes(chunk.length);
      yield chunk;
    }
  }
  const parser: Parser = parse({
    delimiter,
    bom: true,
    relax_column_count: true,
    // A quote inside an unquoted field (`5" screen`) is kept as a character, as spreadsheets write it.
    relax_quotes: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  const stream = Readable.from(all());
  stream.on('error', (err) => parser.destroy(err));
  stream.pipe(parser);
  let row = 0;
  try {
    for await (const values of parser as AsyncIterable<string[]>) {
      row += 1;
      // A line of only delimiters (Excel pads trailing rows) is as empty as a blank line.
      if (values.every((v) => v.trim() === '')) continue;
      yield { row, values };
    }
  } finally {
    // A reader that stops early (only the header was wanted) must not leave the source open.
    stream.destroy();
    await input.return?.();
  }
}
