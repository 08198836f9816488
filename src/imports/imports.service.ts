import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Deps } from '../platform/deps.js';
import { DomainError, NotFound } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { requireProfile } from '../profiles/profiles.service.js';
import { MappingError, parseMap, planColumns } from './columns.js';
import { csvRecords, CsvEncodingError, CsvRecordTooLongError, HEAD_LIMIT } from './csv-source.js';
import { runImport, type ImportOptions } from './importer.js';
import * as repo from './imports.repository.js';
import { uploadDir } from './spool.js';
import type { ImportViewType, StartImportInput } from './imports.schemas.js';
import { rejectLine, rejectsHeaderLine } from './rejects-csv.js';

const API_BATCH_SIZE = 500;

export const importNotFound = (id: string) => new NotFound('Import', 'id', id);

class PayloadTooLarge extends DomainError<'body_too_large'> {
  constructor(limit: number) {
    super('body_too_large', { limit });
  }
}

export function toImportView(row: repo.ImportRow): ImportViewType {
  const o = JSON.parse(row.options) as ImportViewType['options'];
  return {
    id: row.id,
    status: row.status,
    source: row.source,
    options: {
      profile: o.profile,
      onDuplicate: o.onDuplicate,
      startConversations: o.startConversations,
      dryRun: o.dryRun,
      // Imports recorded before the option existed rejected such rows.
      invalidFields: o.invalidFields ?? 'reject',
      map: o.map ?? null,
      encoding: o.encoding ?? null,
    },
    total: Number(row.total),
    created: Number(row.created),
    updated: Number(row.updated),
    skipped: Number(row.skipped),
    rejected: Number(row.rejected),
    warned: Number(row.warned),
    error: row.error,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** Checks the options of an import (profile, map) into what runImport takes; a client's mistake is a 400/404 naming it. */
export async function importOptions(deps: Deps, organizationId: string, q: StartImportInput): Promise<ImportOptions> {
  const profile = q.profile ?? 'default';
  await requireProfile(deps.db, organizationId, profile);
  let map;
  try {
    map = parseMap(q.map);
  } catch (err) {
    if (err instanceof MappingError) throw new DomainError('invalid_map', { detail: err.message });
    throw err;
  }
  return {
    profile,
    onDuplicate: q.onDuplicate ?? 'update',
    startConversations: q.startConversations ?? false,
    dryRun: q.dryRun ?? false,
    invalidFields: q.invalidFields ?? 'drop',
    map,
    encoding: q.encoding,
  };
}

/** The options an import row records (GET /v1/imports/{id} shows them), as asked. */
export const storedOptions = (o: ImportOptions, q: { map?: string; encoding?: string }, dryRun = o.dryRun): string =>
  JSON.stringify({
    profile: o.profile,
    onDuplicate: o.onDuplicate,
    startConversations: o.startConversations,
    dryRun,
    invalidFields: o.invalidFields ?? 'drop',
    map: q.map ?? null,
    encoding: q.encoding ?? null,
  });

/** Writes the upload to a temporary file as it arrives (never whole in memory), refusing it past `limit` bytes. */
async function spool(body: Readable, root: string, limit: number): Promise<{ dir: string; file: string }> {
  // In this process's spool folder: a leftover of a killed process is swept at the next start (spool.ts).
  const dir = await uploadDir(root);
  const file = join(dir, 'upload.csv');
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > limit ? new PayloadTooLarge(limit) : null, chunk);
    },
  });
  try {
    await pipeline(body, counter, createWriteStream(file));
    return { dir, file };
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    body.resume();
    throw err;
  }
}

/** The header line of a spooled file, mapped: a map naming a missing column is the client's 400 before the import starts. */
export async function checkHeader(file: string, options: ImportOptions): Promise<void> {
  const records = csvRecords(createReadStream(file), undefined, options.encoding);
  let first;
  try {
    first = await records.next();
  } catch (err) {
    if (err instanceof CsvEncodingError) throw new DomainError('invalid_encoding', { reason: err.message });
    if (err instanceof CsvRecordTooLongError) {
      throw new DomainError('header_too_long', { mib: HEAD_LIMIT / (1024 * 1024), bytes: HEAD_LIMIT });
    }
    throw err;
  }
  await records.return(undefined);
  if (first.done) throw new DomainError('empty_file');
  try {
    planColumns(
      first.value.values.map((h) => h.trim()),
      options.map,
    );
  } catch (err) {
    if (err instanceof MappingError) throw new DomainError('invalid_map', { detail: err.message });
    throw err;
  }
}

/**
 * POST /v1/imports: the body is spooled to a temporary file, its header
 * checked, the import recorded as running and answered at once; the rows are
 * imported in the background of this process, and GET /v1/imports/{id} shows
 * the counts as each batch commits.
 */
export async function startImport(
  deps: Deps,
  organizationId: string,
  body: Readable,
  q: StartImportInput,
): Promise<ImportViewType> {
  const options = await importOptions(deps, organizationId, q);
  const { dir, file } = await spool(body, deps.config.importSpoolDir, deps.config.importBodyLimitBytes);
  try {
    await checkHeader(file, options);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const id = newId();
  const at = deps.clock.now().toISOString();
  const row = {
    id,
    status: 'running' as const,
    source: 'api',
    options: storedOptions(options, q),
    headers: null,
    error: null,
    started_at: at,
    finished_at: null,
    heartbeat_at: at,
  };
  await repo.insertImport(deps.db, organizationId, row);
  const work = (async () => {
    try {
      // Smaller batches than the command's: each holds SQLite's write lock, which the server's requests share.
      // The spooled file is read twice: the look-ahead's pass, then the import's (importer.ts).
      await runImport(deps, organizationId, id, () => createReadStream(file), {
        ...options,
        batchSize: API_BATCH_SIZE,
      });
      await repo.finishImport(deps.db, organizationId, id, 'completed', null, deps.clock.now().toISOString());
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      deps.log.error({ err, importId: id }, 'import failed');
      await repo
        .finishImport(deps.db, organizationId, id, 'failed', message, deps.clock.now().toISOString())
        .catch(() => {});
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  })();
  void work;
  // The import as accepted (a small file may be done before a read could answer).
  return toImportView({
    ...row,
    organization_id: organizationId,
    total: 0,
    created: 0,
    updated: 0,
    skipped: 0,
    rejected: 0,
    warned: 0,
  });
}

/** A running import without a beat for this long lost its process (it beats every HEARTBEAT_MS, importer.ts). */
const STALE_AFTER_MS = 2 * 60_000;

export const INTERRUPTED =
  'The import stopped before the end of the file: the process running it ended (a restart or a crash). ' +
  'The counts are the rows committed before it stopped. Import the same file again to finish: rows already imported are matched, not duplicated.';

export async function getImport(deps: Deps, organizationId: string, id: string): Promise<ImportViewType> {
  let row = await repo.findImport(deps.db, organizationId, id);
  if (!row) throw importNotFound(id);
  const now = deps.clock.now();
  const beat = row.heartbeat_at ?? row.started_at;
  if (row.status === 'running' && now.getTime() - Date.parse(beat) > STALE_AFTER_MS) {
    // Ended once, by whichever reader comes first; a beat that arrives meanwhile cannot revive it (finishImport needs `running`).
    await repo.finishImport(deps.db, organizationId, id, 'failed', INTERRUPTED, now.toISOString());
    // biome-ignore lint/style/noNonNullAssertion: the import was found above, and imports are never deleted (only their rejects are)
    row = (await repo.findImport(deps.db, organizationId, id))!;
  }
  return toImportView(row);
}

/** GET /v1/imports/{id}/rejects: the rejects file (rejects-csv.ts), streamed a page at a time. */
export async function rejectsCsv(deps: Deps, organizationId: string, id: string): Promise<Readable> {
  const row = await repo.findImport(deps.db, organizationId, id);
  if (!row) throw importNotFound(id);
  const headers = row.headers ? (JSON.parse(row.headers) as string[]) : [];
  async function* lines(): AsyncGenerator<string> {
    yield rejectsHeaderLine(headers);
    let after = 0;
    for (;;) {
      const page = await repo.listRejects(deps.db, organizationId, id, after, 500);
      for (const r of page) yield rejectLine(headers, r.raw, r.reason, r.warnings);
      if (page.length < 500) return;
      // biome-ignore lint/style/noNonNullAssertion: page.length is 500 here (a shorter page returned above)
      after = page[page.length - 1]!.row_number;
    }
  }
  return Readable.from(lines());
}
