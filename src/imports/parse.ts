import type { KeyObject } from 'node:crypto';
import { addressDigests } from '../platform/address-digest.js';
import { planColumns, type MapEntry } from './columns.js';
import { csvRecords, type CsvEncoding } from './csv-source.js';
import type { NewReject } from './imports.repository.js';
import { addressesIn, readRow, type ImportedLead, type InvalidFields } from './rows.js';

/** A file without even a header line. */
export class ImportFileError extends Error {}

/** How a file is read: what its columns mean, and its encoding. Both the import's options and the parser's. */
export interface FileOptions {
  map: Map<string, MapEntry>;
  /** The file's encoding when it has no byte order mark (csv-source.ts detects it otherwise). */
  encoding?: CsvEncoding;
  /** A row with a usable lead and a bad field: import without the field, with a warning (default), or reject the row. */
  invalidFields?: InvalidFields;
}

export interface ParseOptions extends FileOptions {
  defaultCountry: string;
  /** Rows (valid and rejected together) per part. */
  batchSize: number;
  /**
   * The key of the opt-out digests (platform/address-digest.ts): each part
   * carries the keyed digest of its rows' addresses, so the writer looks
   * their opt-outs up without spending its own thread on HMACs.
   */
  digestKey?: KeyObject;
  /** Read the file once first for what later rows set (look-ahead.ts); the parsing thread does it. */
  lookAhead?: boolean;
}

/** What parsing a file yields: its header line once, mapped, then its rows a batch at a time. */
export type ParsedPart =
  | { kind: 'headers'; headers: string[] }
  | {
      kind: 'rows';
      valid: ImportedLead[];
      rejects: NewReject[];
      warned: NewReject[];
      digests?: Map<string, string>;
      /** Bytes of the file read when the part was cut: its rows end at most a read chunk and the parser's buffers before. */
      bytes: number;
    };

/**
 * Reads, maps and validates a CSV stream, with no database: the part of an
 * import that is pure CPU, so it can run on its own thread (parse-thread.ts)
 * while the database writes the batch before. Throws ImportFileError (no
 * header), MappingError (the header does not fit the map) or
 * CsvEncodingError before yielding what they concern.
 */
export async function* parseCsv(
  source: AsyncIterable<Buffer | string>,
  options: ParseOptions,
  onBytes?: (n: number) => void,
): AsyncGenerator<ParsedPart> {
  let read = 0;
  const records = csvRecords(
    source,
    (n) => {
      read += n;
      onBytes?.(n);
    },
    options.encoding,
  );
  const first = await records.next();
  if (first.done) throw new ImportFileError('the file is empty: a CSV import needs a header line naming its columns');
  const headers = first.value.values.map((h) => h.trim());
  const plan = planColumns(headers, options.map);
  yield { kind: 'headers', headers };
  const digestsOf = options.digestKey ? addressDigests(options.digestKey) : undefined;
  let valid: ImportedLead[] = [];
  let rejects: NewReject[] = [];
  // Rows imported without a bad field: kept beside the rejects (the rejects file lists them with their warnings).
  let warned: NewReject[] = [];
  const part = (): ParsedPart => {
    if (!digestsOf) return { kind: 'rows', valid, rejects, warned, bytes: read };
    const digests = new Map<string, string>();
    for (const r of valid)
      for (const a of [r.phone, r.email]) if (a !== null && !digests.has(a)) digests.set(a, digestsOf.keyed(a));
    for (const r of [...rejects, ...warned])
      for (const a of r.addresses) if (!digests.has(a)) digests.set(a, digestsOf.keyed(a));
    return { kind: 'rows', valid, rejects, warned, digests, bytes: read };
  };
  const quoted = (row: number, values: readonly string[], reason: string, warnings: string | null): NewReject => ({
    row_number: row,
    raw: JSON.stringify(values),
    reason,
    warnings,
    addresses: addressesIn(values, options.defaultCountry),
  });
  for await (const record of records) {
    const outcome = readRow(plan, record.values, options.defaultCountry, options.invalidFields);
    if (outcome.ok) {
      outcome.lead.row = record.row;
      valid.push(outcome.lead);
      if (outcome.warnings.length > 0) warned.push(quoted(record.row, record.values, '', outcome.warnings.join('; ')));
    } else rejects.push(quoted(record.row, record.values, outcome.reason, null));
    if (valid.length + rejects.length >= options.batchSize) {
      yield part();
      valid = [];
      rejects = [];
      warned = [];
    }
  }
  if (valid.length + rejects.length > 0) yield part();
}
