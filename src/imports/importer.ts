import type { Deps } from '../platform/deps.js';
import { refreshStatistics } from '../platform/db/statistics.js';
import { runBatch, type BatchInput, type BatchOptions } from './batch.js';
import type { RejectRow } from './imports.repository.js';
import * as repo from './imports.repository.js';
import type { FileOptions, ParsedPart } from './parse.js';
import { parseInThread } from './parse-thread.js';
import { LaterRows, type LaterRowsData } from './look-ahead.js';
import type { OnDuplicate } from './resolve.js';

export interface ImportOptions extends FileOptions {
  profile: string;
  onDuplicate: OnDuplicate;
  startConversations: boolean;
  dryRun: boolean;
  /** Rows per transaction. */
  batchSize?: number;
}

export interface ImportCounts {
  total: number;
  created: number;
  updated: number;
  skipped: number;
  rejected: number;
  /** Rows imported without a field that was not valid (listed in the rejects file with their warnings). */
  warned: number;
  openings: number;
}

export interface ImportHooks {
  /** The file's header line, once read and mapped. */
  onHeaders?(headers: string[]): void | Promise<void>;
  /** After each committed batch: the running counts and the batch's rejected rows. */
  onBatch?(counts: ImportCounts, rejects: RejectRow[]): void | Promise<void>;
  /** Bytes of the source read so far (by the parsing thread, which runs a few batches ahead of the writes). */
  onBytes?(n: number): void;
  /** After each committed batch: the bytes of the file read up to its rows (a read chunk more at most, with the parser's buffers), for progress. */
  onCommittedBytes?(bytes: number): void;
}

/** 2000 rows per transaction: large enough that a durable commit costs little per row, small enough to hold in memory many times over. */
export const DEFAULT_BATCH_SIZE = 2000;

/** How often a running import says it is alive, besides each batch's commit. */
export const HEARTBEAT_MS = 10_000;

/** Created leads after which PostgreSQL's statistics of the leads table are refreshed the first time (then at 4x, 16x, ...). */
const FIRST_STATISTICS_AT = 20_000;

export const zeroCounts = (): ImportCounts => ({
  total: 0,
  created: 0,
  updated: 0,
  skipped: 0,
  rejected: 0,
  warned: 0,
  openings: 0,
});

/**
 * Reads a CSV stream and imports its rows in batches (runBatch): streaming
 * end to end, so memory holds a few batches whatever the file's size; the
 * file is parsed and validated on a thread of its own (parse-thread.ts)
 * while this one writes the batch before. A source given as a function that
 * opens it is read twice: first for what later rows of each lead set
 * (look-ahead.ts), so that rows repeating a lead end with each field's last
 * value across batches and a second run changes nothing. Throws
 * ImportFileError (no header) or MappingError (the header does not fit the
 * map) before anything is written; a database error stops the import after
 * the batches already committed.
 */
export async function runImport(
  deps: Deps,
  organizationId: string,
  importId: string | null,
  source: AsyncIterable<Buffer | string> | (() => AsyncIterable<Buffer | string>),
  options: ImportOptions,
  hooks: ImportHooks = {},
): Promise<ImportCounts> {
  const counts = zeroCounts();
  const size = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const parts = parseInThread(
    source,
    {
      map: options.map,
      encoding: options.encoding,
      invalidFields: options.invalidFields,
      defaultCountry: deps.config.defaultCountry,
      batchSize: size,
      digestKey: deps.digests.key,
    },
    hooks.onBytes,
  );
  // The parsing thread ends with the import, however it ends.
  try {
    return await importParts(deps, organizationId, importId, parts, options, hooks, counts);
  } finally {
    await parts.return(undefined);
  }
}

async function importParts(
  deps: Deps,
  organizationId: string,
  importId: string | null,
  parts: AsyncGenerator<ParsedPart | { kind: 'later'; data: LaterRowsData }>,
  options: ImportOptions,
  hooks: ImportHooks,
  counts: ImportCounts,
): Promise<ImportCounts> {
  // The look-ahead first, when the source could be read twice; then parseCsv's header, or its error (an empty file
  // is its ImportFileError).
  let first = await parts.next();
  let later: LaterRows | undefined;
  if (!first.done && first.value.kind === 'later') {
    later = new LaterRows(first.value.data);
    first = await parts.next();
  }
  if (first.done || first.value.kind !== 'headers') throw new Error('the import parser yielded rows before the header');
  const { headers } = first.value;
  if (importId) await repo.setImportHeaders(deps.db, organizationId, importId, headers);
  await hooks.onHeaders?.(headers);
  const batchOptions: BatchOptions = { ...options, importId, later };
  let statisticsAt = FIRST_STATISTICS_AT;
  // Each batch beats with its counts; the timer covers a batch that waits long (GET /v1/imports/{id} ends a silent import).
  const beat = importId
    ? setInterval(() => {
        repo
          .beatImport(deps.db, organizationId, importId, deps.clock.now().toISOString())
          .catch((err: unknown) => deps.log.warn({ err, importId }, 'import heartbeat not written'));
      }, HEARTBEAT_MS)
    : undefined;
  beat?.unref();
  // The batch being written while the next is read and validated on the parsing thread. One batch at a time is
  // written, in file order: each sees the last committed.
  let writing: Promise<void> = Promise.resolve();
  const write = async (input: BatchInput, bytes: number) => {
    const result = await runBatch(deps, organizationId, input, batchOptions);
    for (const k of Object.keys(counts) as (keyof ImportCounts)[]) counts[k] += result[k];
    if (!options.dryRun && counts.created >= statisticsAt) {
      statisticsAt *= 4;
      await refreshStatistics(deps.db, 'leads');
    }
    // Rejected rows and rows imported with warnings, in file order: the rejects file lists both.
    const listed = input.warned?.length
      ? [...input.rejects, ...input.warned].sort((a, b) => a.row_number - b.row_number)
      : input.rejects;
    hooks.onCommittedBytes?.(bytes);
    await hooks.onBatch?.({ ...counts }, listed);
  };
  try {
    for await (const part of parts) {
      if (part.kind !== 'rows') continue;
      await writing;
      writing = write(
        { valid: part.valid, rejects: part.rejects, warned: part.warned, digests: part.digests },
        part.bytes,
      );
      // Its failure is seen at the next part or the end; until then it must not count as unhandled.
      writing.catch(() => {});
    }
    await writing;
  } catch (err) {
    // The file failed (or a write): the batch in flight settles before the caller records the outcome.
    await writing.catch(() => {});
    throw err;
  } finally {
    clearInterval(beat);
  }
  // A bulk load leaves PostgreSQL's statistics describing a much smaller table: the next campaign's snapshot or
  // search would be planned for that table (autovacuum catches up only after 10 % of the rows changed).
  if (!options.dryRun && counts.created > 0) await refreshStatistics(deps.db, 'leads');
  return counts;
}
