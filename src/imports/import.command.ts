import { createReadStream, createWriteStream, statSync, type WriteStream } from 'node:fs';
import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { findOrganizationByName } from '../organizations/organizations.repository.js';
import { describeDatabase, type Config } from '../platform/config.js';
import { assembleDeps } from '../platform/assemble.js';
import { tuneForBulkWrites, type BulkWrites } from '../platform/db/bulk.js';
import { openStore } from '../platform/db/connect.js';
import { DomainError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { MappingError } from './columns.js';
import { CSV_ENCODINGS, type CsvEncoding } from './csv-source.js';
import { runImport, zeroCounts, type ImportCounts } from './importer.js';
import { rejectLine, rejectsHeaderLine } from './rejects-csv.js';
import { ImportFileError } from './parse.js';
import * as repo from './imports.repository.js';
import { checkHeader, importOptions, storedOptions } from './imports.service.js';

export interface ImportCommandOptions {
  org: string;
  profile?: string;
  map?: string;
  onDuplicate?: string;
  invalidFields?: string;
  startConversations?: boolean;
  dryRun?: boolean;
  rejects?: string;
  batchSize?: string;
  encoding?: string;
}

/** A mistake in the command line or its inputs: one line on stderr, exit 2, nothing written. */
class UsageError extends Error {}

const rate = (rows: number, ms: number) => Math.round(rows / Math.max(ms / 1000, 0.001));

/** The bar on a terminal, else a plain line every 2 s; exported for its test. */
export function progressReporter(size: number, started: number) {
  let bytes = 0;
  // A batch's bytes arrive before its commit is durable and its counts are in: shown with those counts only,
  // so a line never pairs the next batch's position with the previous batch's rows.
  let committing = 0;
  let counts: ImportCounts = zeroCounts();
  const payload = () => ({
    rows: counts.total,
    rate: rate(counts.total, Date.now() - started),
    rejected: counts.rejected,
  });
  const bytesOf = (n: number) => {
    committing = n;
  };
  const take = (c: ImportCounts) => {
    counts = c;
    bytes = committing;
  };
  if (process.stdout.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: '{bar} {percentage}% | {rows} rows | {rate} rows/s | ETA {eta_formatted} | rejected {rejected}',
        stream: process.stdout,
        hideCursor: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(size, 1), 0, payload());
    return {
      bytes: bytesOf,
      batch: (c: ImportCounts) => {
        take(c);
        bar.update(Math.min(bytes, size), payload());
      },
      stop: () => {
        bar.update(Math.min(bytes, size), payload());
        bar.stop();
      },
    };
  }
  // Not a terminal (a log, CI): a plain line every 2 s instead of a redrawn bar.
  const line = () => {
    const p = payload();
    const eta = bytes > 0 ? Math.round((((Date.now() - started) / bytes) * (size - bytes)) / 1000) : 0;
    console.log(
      `progress: ${p.rows} rows, ${p.rate} rows/s, ${size ? Math.floor((bytes / size) * 100) : 100}% of the file, ETA ${eta} s, rejected ${p.rejected}`,
    );
  };
  const timer = setInterval(line, 2000);
  timer.unref();
  return { bytes: bytesOf, batch: take, stop: () => clearInterval(timer) };
}

function checkArgs(
  file: string,
  opts: ImportCommandOptions,
): { path: string; size: number; batchSize: number | undefined } {
  const path = resolve(file);
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new UsageError(`${file} is not a file`);
    size = st.size;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${file}: no such file`);
  }
  if (opts.onDuplicate !== undefined && opts.onDuplicate !== 'skip' && opts.onDuplicate !== 'update') {
    throw new UsageError(`--on-duplicate must be skip or update (got "${opts.onDuplicate}")`);
  }
  if (opts.invalidFields !== undefined && opts.invalidFields !== 'drop' && opts.invalidFields !== 'reject') {
    throw new UsageError(`--invalid-fields must be drop or reject (got "${opts.invalidFields}")`);
  }
  const batchSize = opts.batchSize === undefined ? undefined : Number(opts.batchSize);
  if (opts.encoding !== undefined && !(CSV_ENCODINGS as readonly string[]).includes(opts.encoding)) {
    throw new UsageError(`--encoding must be one of ${CSV_ENCODINGS.join(', ')} (got "${opts.encoding}")`);
  }
  if (batchSize !== undefined && (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000))
    throw new UsageError('--batch-size must be an integer from 1 to 10000');
  return { path, size, batchSize };
}

/** `parley import leads FILE --org NAME ...`: answers the exit code (0 when the import ran, rejects or not). */
export async function importLeadsCommand(file: string, opts: ImportCommandOptions, cfg: Config): Promise<number> {
  let args;
  try {
    args = checkArgs(file, opts);
  } catch (err) {
    console.error(`parley: ${(err as Error).message}`);
    return 2;
  }
  const store = openStore(cfg.databaseUrl, 2, { busyTimeoutMs: 60_000 });
  let rejectsOut: WriteStream | undefined;
  let rejectsHeaders: readonly string[] = [];
  let bulk: BulkWrites | undefined;
  try {
    const deps = await assembleDeps(store, cfg);
    const tuned = await tuneForBulkWrites(store.db);
    bulk = tuned;
    const org = await findOrganizationByName(store.db, opts.org);
    if (!org) throw new UsageError(`no organization named "${opts.org}" in ${describeDatabase(cfg.databaseUrl)}`);
    const q = {
      profile: opts.profile,
      map: opts.map,
      onDuplicate: opts.onDuplicate as 'skip' | 'update' | undefined,
      invalidFields: opts.invalidFields as 'drop' | 'reject' | undefined,
      startConversations: !!opts.startConversations,
      dryRun: !!opts.dryRun,
      encoding: opts.encoding as CsvEncoding | undefined,
    };
    const options = { ...(await importOptions(deps, org.id, q)), batchSize: args.batchSize };
    // The header against the map before anything is recorded: a mistake there writes nothing.
    await checkHeader(args.path, options);
    const importId = options.dryRun ? null : newId();
    const started = Date.now();
    if (importId) {
      await repo.insertImport(store.db, org.id, {
        id: importId,
        status: 'running',
        source: 'cli',
        options: storedOptions(options, opts, false),
        headers: null,
        error: null,
        started_at: new Date(started).toISOString(),
        finished_at: null,
        heartbeat_at: new Date(started).toISOString(),
      });
    }
    const progress = progressReporter(args.size, started);
    let counts: ImportCounts;
    try {
      counts = await runImport(
        deps,
        org.id,
        importId,
        // Opened twice: the look-ahead's pass, then the import's (importer.ts).
        () => createReadStream(args.path, { highWaterMark: 256 * 1024 }),
        options,
        {
          // The bar follows the rows committed, not the bytes the parser has read ahead of them.
          onCommittedBytes: progress.bytes,
          onHeaders: (headers) => {
            if (!opts.rejects) return;
            rejectsOut = createWriteStream(resolve(opts.rejects));
            rejectsHeaders = headers;
            rejectsOut.write(rejectsHeaderLine(headers));
          },
          onBatch: async (c, rejects) => {
            await tuned.committed();
            progress.batch(c);
            const out = rejectsOut;
            if (!out || rejects.length === 0) return;
            const text = rejects.map((r) => rejectLine(rejectsHeaders, r.raw, r.reason, r.warnings)).join('');
            if (!out.write(text)) await new Promise<void>((ok) => out.once('drain', () => ok()));
          },
        },
      );
    } catch (err) {
      progress.stop();
      if (importId)
        await repo
          .finishImport(store.db, org.id, importId, 'failed', (err as Error).message, new Date().toISOString())
          .catch(() => {});
      if (err instanceof MappingError || err instanceof ImportFileError) throw new UsageError(err.message);
      throw err;
    }
    progress.stop();
    if (importId) await repo.finishImport(store.db, org.id, importId, 'completed', null, new Date().toISOString());
    const ms = Date.now() - started;
    console.log(
      `${options.dryRun ? 'dry run (nothing written)' : 'import completed'}: ${counts.total} rows in ${(ms / 1000).toFixed(1)} s (${rate(counts.total, ms)} rows/s)`,
    );
    console.log(
      `created ${counts.created}, updated ${counts.updated}, skipped ${counts.skipped}, rejected ${counts.rejected}, imported with warnings ${counts.warned}`,
    );
    if (options.startConversations)
      console.log(`openings scheduled: ${counts.openings} (each sent through the compliance gate)`);
    if (counts.rejected + counts.warned > 0)
      console.log(
        opts.rejects
          ? `rejected rows: ${resolve(opts.rejects)}`
          : importId
            ? `rejected rows: GET /v1/imports/${importId}/rejects (or run again with --rejects FILE)`
            : 'rejected rows: run again with --rejects FILE to see them',
      );
    if (importId) console.log(`import id: ${importId}`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || err instanceof DomainError) {
      console.error(`parley: ${err.message}`);
      return 2;
    }
    throw err;
  } finally {
    const out = rejectsOut;
    if (out) await new Promise<void>((ok) => out.end(() => ok()));
    await bulk?.close();
    await store.close();
  }
}
