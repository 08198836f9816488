import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/imports/parse.js';

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
