import { describe, expect, it, vi } from 'vitest';
import { progressReporter } from '../../src/imports/import.command.js';
import { runImport, zeroCounts, type ImportOptions } from '../../src/imports/importer.js';
import { parseCsv } from '../../src/imports/parse.js';
import { findOrganizationByName } from '../../src/organizations/organizations.repository.js';
import { describeEachDialect } from '../support/harness.js';
import { until } from '../support/assert.js';
import { importPhone } from './support.js';

async function* chunksOf(buf: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

/**
 * Issue 28: the command's progress bar follows the bytes of the rows
 * committed (each part says how far into the file its rows are), not the
 * bytes the parser has read batches ahead of the writes.
 */
describe('the bytes each parsed part stands at', () => {
  it('cover its rows, trail them by at most a chunk and the parser buffers, and reach the whole file at the end', async () => {
    const lines = ['First Name,Phone,Notes'];
    for (let i = 0; i < 20_000; i++) lines.push(`Ann${i},+1415${String(2_000_000 + i)},"note, ${i}"`);
    const text = `${lines.join('\n')}\n`;
    const file = Buffer.from(text);
    // The byte just past each row (row numbers count the header as 1).
    const ends: number[] = [];
    let at = 0;
    for (const line of lines) ends.push((at += Buffer.byteLength(line) + 1));
    const chunk = 4096;
    const parts = [];
    for await (const p of parseCsv(chunksOf(file, chunk), { map: new Map(), defaultCountry: 'US', batchSize: 1000 }))
      if (p.kind === 'rows') parts.push(p);
    expect(parts).toHaveLength(20);
    let before = 0;
    for (const p of parts) {
      const lastRow = p.valid.at(-1)!.row!;
      const end = ends[lastRow - 1]!;
      expect(p.bytes).toBeGreaterThanOrEqual(end);
      expect(p.bytes).toBeGreaterThanOrEqual(before);
      // Far less than the 1,000 rows (some 30 KB) of one batch ahead.
      expect(p.bytes - end).toBeLessThanOrEqual(chunk + 16 * 1024);
      before = p.bytes;
    }
    expect(parts.at(-1)!.bytes).toBe(file.length);
  });
});

/**
 * The import's onCommittedBytes, as the command's bar takes it: after each
 * committed batch, the bytes up to that batch's last row (its rows are in the
 * database; the parser, reading ahead, is not counted), and the whole file at
 * the end.
 */
describeEachDialect('the bytes an import reports committed', (ctx) => {
  it('cover the rows written, never run a batch ahead of them, and reach the file size', async () => {
    const ts = ctx();
    const org = (await findOrganizationByName(ts.server.store.db, 'acme'))!;
    const note = 'n'.repeat(120);
    const lines = ['First Name,Phone,Notes'];
    for (let i = 0; i < 3000; i++) lines.push(`Bytes${i},${importPhone()},${note}`);
    const file = Buffer.from(`${lines.join('\n')}\n`);
    const ends: number[] = [];
    let at = 0;
    for (const line of lines) ends.push((at += Buffer.byteLength(line) + 1));
    const chunk = 4096;
    const options: ImportOptions = {
      profile: 'default',
      onDuplicate: 'update',
      startConversations: false,
      dryRun: false,
      map: new Map(),
      batchSize: 250,
    };
    const leads = async () =>
      Number(
        (
          await ts.server.store.db
            .selectFrom('leads')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('organization_id', '=', org.id)
            .where('first_name', 'like', 'Bytes%')
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await leads();
    const seen: { bytes: number; written: number }[] = [];
    let committed = -1;
    let read = 0;
    const counts = await runImport(ts.server.deps, org.id, null, () => chunksOf(file, chunk), options, {
      // Each chunk the parser reads (on its second pass), as it reads it.
      onBytes: (n) => {
        read += n;
      },
      onCommittedBytes: (n) => {
        committed = n;
      },
      // Right after onCommittedBytes, for the same batch: what the database holds then. Then the writes wait for
      // the parser to read a batch and more past them, so that it is ahead of them whatever the machine's load
      // (else reporting what it read could pass unseen).
      onBatch: async () => {
        seen.push({ bytes: committed, written: (await leads()) - before });
        await until(
          () => read,
          (r) => r >= Math.min(file.length, committed + 40_000),
          10_000,
          { what: 'the parser to read ahead', every: 5 },
        );
      },
    });
    expect(counts).toMatchObject({ total: 3000, created: 3000 });
    expect(seen).toHaveLength(12);
    let last = 0;
    for (const s of seen) {
      // The rows written so far end at ends[s.written] (ends[0] is the header's).
      const end = ends[s.written]!;
      expect(s.bytes).toBeGreaterThanOrEqual(end);
      // At most a read chunk and the parser's buffers past them: far less than the next batch (some 37 KB).
      expect(s.bytes - end).toBeLessThanOrEqual(chunk + 16 * 1024);
      expect(s.bytes).toBeGreaterThanOrEqual(last);
      last = s.bytes;
    }
    expect(seen.at(-1)!.bytes).toBe(file.length);
  });
});

/** The command's progress when its output is no terminal (a log, CI): a plain line every 2 s. */
describe('the import command without a terminal', () => {
  it('prints a line every 2 s with the rows, the share of the file committed and the rejected, and stops', () => {
    expect(process.stdout.isTTY).toBeFalsy();
    vi.useFakeTimers({ now: 1_000_000 });
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      const progress = progressReporter(40_000, Date.now());
      vi.advanceTimersByTime(1_999);
      expect(log).not.toHaveBeenCalled();
      progress.bytes(10_000);
      progress.batch({ ...zeroCounts(), total: 500, created: 480, rejected: 20 });
      vi.advanceTimersByTime(1);
      expect(log.mock.calls).toEqual([['progress: 500 rows, 250 rows/s, 25% of the file, ETA 6 s, rejected 20']]);
      // The next batch's bytes are in but its commit is not: the line keeps the committed batch's position.
      progress.bytes(40_000);
      vi.advanceTimersByTime(2_000);
      expect(log.mock.calls.at(-1)).toEqual(['progress: 500 rows, 125 rows/s, 25% of the file, ETA 12 s, rejected 20']);
      progress.batch({ ...zeroCounts(), total: 2000, created: 1950, rejected: 50 });
      vi.advanceTimersByTime(2_000);
      expect(log.mock.calls.at(-1)).toEqual([
        'progress: 2000 rows, 333 rows/s, 100% of the file, ETA 0 s, rejected 50',
      ]);
      progress.stop();
      vi.advanceTimersByTime(10_000);
      expect(log).toHaveBeenCalledTimes(3);
    } finally {
      log.mockRestore();
      vi.useRealTimers();
    }
  });
});
