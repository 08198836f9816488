import type { Deps } from '../platform/deps.js';
import { runBatch, type BatchOptions } from './batch.js';
import { planColumns, type MapEntry } from './columns.js';
import { csvRecords } from './csv-source.js';
import type { RejectRow } from './imports.repository.js';
import { setImportHeaders } from './imports.repository.js';
import type { OnDuplicate } from './resolve.js';
import { readRow, type ImportedLead } from './rows.js';

export interface ImportOptions {
  profile: string;
  onDuplicate: OnDuplicate;
  startConversations: boolean;
  dryRun: boolean;
  map: Map<string, MapEntry>;
  /** Rows per transaction. */
  batchSize?: number;
}

export interface ImportCounts {
  total: number;
  created: number;
  updated: number;
  skipped: number;
  rejected: number;
  openings: number;
}

export interface ImportHooks {
  /** The file's header line, once read and mapped. */
  onHeaders?(headers: string[]): void | Promise<void>;
  /** After each committed batch: the running counts and the batch's rejected rows. */
  onBatch?(counts: ImportCounts, rejects: RejectRow[]): void | Promise<void>;
  /** Bytes of the source read so far. */
  onBytes?(n: number): void;
}

export class ImportFileError extends Error {}

/** 2000 rows per transaction: large enough that a durable commit costs little per row, small enough to hold in memory many times over. */
export const DEFAULT_BATCH_SIZE = 2000;

export const zeroCounts = (): ImportCounts => ({ total: 0, created: 0, updated: 0, skipped: 0, rejected: 0, openings: 0 });

/**
 * Reads a CSV stream and imports its rows in batches (runBatch): streaming
 * end to end, so memory holds one batch whatever the file's size. Throws
 * ImportFileError (no header) or MappingError (the header does not fit the
 * map) before anything is written; a database error stops the import after
 * the batches already committed.
 */
export async function runImport(
  deps: Deps,
  organizationId: string,
  importId: string | null,
  source: AsyncIterable<Buffer | string>,
  options: ImportOptions,
  hooks: ImportHooks = {},
): Promise<ImportCounts> {
  const counts = zeroCounts();
  const records = csvRecords(source, hooks.onBytes);
  const first = await records.next();
  if (first.done) throw new ImportFileError('the file is empty: a CSV import needs a header line naming its columns');
  const headers = first.value.values.map((h) => h.trim());
  const plan = planColumns(headers, options.map);
  if (importId) await setImportHeaders(deps.db, organizationId, importId, headers);
  await hooks.onHeaders?.(headers);
  const batchOptions: BatchOptions = { ...options, importId };
  const size = options.batchSize ?? DEFAULT_BATCH_SIZE;
  let valid: ImportedLead[] = [];
  let rejects: RejectRow[] = [];
  const flush = async () => {
    if (valid.length + rejects.length === 0) return;
    const result = await runBatch(deps, organizationId, { valid, rejects }, batchOptions);
    for (const k of Object.keys(counts) as (keyof ImportCounts)[]) counts[k] += result[k];
    const done = rejects;
    valid = [];
    rejects = [];
    await hooks.onBatch?.({ ...counts }, done);
  };
  for await (const record of records) {
    const outcome = readRow(plan, record.values, deps.config.defaultCountry);
    if (outcome.ok) valid.push(outcome.lead);
    else rejects.push({ row_number: record.row, raw: JSON.stringify(record.values), reason: outcome.reason });
    if (valid.length + rejects.length >= size) await flush();
  }
  await flush();
  return counts;
}
