import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MappingError } from '../../src/imports/columns.js';
import { CsvEncodingError } from '../../src/imports/csv-source.js';
import { ImportFileError, parseCsv, type ParsedPart, type ParseOptions } from '../../src/imports/parse.js';
import { parseInThread } from '../../src/imports/parse-thread.js';
import { addressDigests } from '../../src/platform/address-digest.js';

/**
 * The import parses on a thread of its own (parse-thread.ts): the parts it
 * hands back must be exactly those of parsing in place, its errors the same
 * classes with the same messages, and a writer that stops taking parts must
 * stop the reading of the file, not let it pile up in memory.
 */
const options = (batchSize = 3): ParseOptions => ({ map: new Map(), defaultCountry: 'US', batchSize });

async function* chunksOf(text: string | Buffer, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function all<P>(parts: AsyncIterable<P>): Promise<P[]> {
  const out: P[] = [];
  for await (const p of parts) out.push(p);
  return out;
}

async function failure(parts: AsyncIterable<unknown>): Promise<Error> {
  try {
    await all(parts);
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the parse to fail');
}

const cell = fc.oneof(
  fc.constantFrom(
    '',
    'Ann',
    '+1 415 555 0101',
    'not a phone',
    'a@b.example',
    'America/Chicago',
    'Mars/Base',
    'x"y',
    'a,b',
    'line\nbreak',
    'Zoë',
  ),
  fc.string({ maxLength: 8 }),
);
const quote = (v: string) => (/[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

describe('the import parse thread', () => {
  it("digests each valid row's addresses with the key it is given (what the writer reads opt-outs by)", async () => {
    const digests = addressDigests('parse-thread-test-key');
    const text =
      'First Name,Phone,Email\r\nAnn,+1 415 555 0101,Ann@B.example\r\nBob,,bob@b.example\r\nBad,12,\r\nCy,(415) 555-0102,';
    const parts = (await all(parseInThread(chunksOf(text, 7), { ...options(10), digestKey: digests.key }))).filter(
      (p) => p.kind === 'rows',
    );
    expect(parts).toHaveLength(1);
    const part = parts[0] as Extract<ParsedPart, { kind: 'rows' }>;
    const addresses = ['+14155550101', 'ann@b.example', 'bob@b.example', '+14155550102'];
    expect([...part.digests!.keys()].sort()).toEqual([...addresses].sort());
    for (const a of addresses) expect(part.digests!.get(a)).toBe(digests.keyed(a));
    // Without a key, parts carry none (and are otherwise the same).
    const plain = (await all(parseInThread(chunksOf(text, 7), options(10)))).filter((p) => p.kind === 'rows');
    expect(plain).toEqual([{ ...part, digests: undefined }].map(({ digests: _, ...rest }) => rest));
  });

  it('hands back the same parts as parsing in place, in the same order, for any file and chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(cell, { minLength: 4, maxLength: 4 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 5 }),
        async (rows, chunk, batch) => {
          const text = ['First Name,Phone,Email,Time Zone', ...rows.map((r) => r.map(quote).join(','))].join('\r\n');
          // `bytes` (progress.test.ts) is how far the reader had got when a part was cut: reading in place takes
          // every chunk at once, the thread only as credit allows, so it is compared there, not here.
          const withoutBytes = (parts: unknown[]) =>
            parts.map((p) => (typeof p === 'object' && p !== null && 'bytes' in p ? { ...p, bytes: 0 } : p));
          const inPlace = await all(parseCsv(chunksOf(text, chunk), options(batch)));
          const inThread = await all(parseInThread(chunksOf(text, chunk), options(batch)));
          expect(withoutBytes(inThread)).toEqual(withoutBytes(inPlace));
        },
      ),
      { numRuns: 10 },
    );
  });

  it('counts every byte it reads, once', async () => {
    const text = `First Name,Phone\n${Array.from({ length: 50 }, (_, i) => `Ann${i},+1415555${String(1000 + i)}`).join('\n')}\n`;
    let bytes = 0;
    const parts = await all(
      parseInThread(chunksOf(text, 17), options(10), (n) => {
        bytes += n;
      }),
    );
    expect(bytes).toBe(Buffer.byteLength(text));
    expect(
      parts.filter((p) => p.kind === 'rows').reduce((n, p) => n + (p.kind === 'rows' ? p.valid.length : 0), 0),
    ).toBe(50);
  });

  it('gives the errors of the file as their own classes, with their messages', async () => {
    expect(await failure(parseInThread(chunksOf('', 8), options()))).toBeInstanceOf(ImportFileError);
    const mapped = await failure(
      parseInThread(chunksOf('Name,Phone\nAnn,1\n', 8), {
        ...options(),
        map: new Map([['mobile', { header: 'Mobile', target: { field: 'phone' } }]]),
      }),
    );
    expect(mapped).toBeInstanceOf(MappingError);
    expect(mapped.message).toMatch(/--map names columns the file does not have: Mobile/);
    // A byte UTF-8 cannot read, far past the header that chose UTF-8.
    const bad = Buffer.concat([
      Buffer.from(`First Name,Phone\n${'Ann,+14155550101\n'.repeat(200)}`),
      Buffer.from([0x5a, 0xe9, 0x2c, 0x31, 0x0a]),
    ]);
    const encoding = await failure(parseInThread(chunksOf(bad, 256), options()));
    expect(encoding).toBeInstanceOf(CsvEncodingError);
    expect(encoding.message).toMatch(/not valid utf-8/);
  });

  it('a source that fails fails the parse with its own error', async () => {
    async function* broken(): AsyncGenerator<Buffer> {
      yield Buffer.from('First Name,Phone\nAnn,+14155550101\n');
      throw new Error('connection reset by the client');
    }
    expect((await failure(parseInThread(broken(), options()))).message).toBe('connection reset by the client');
  });

  it('reads no further than a few parts ahead of a writer that stopped taking them, and closes the source when dropped', async () => {
    let pulled = 0;
    let pulledBytes = 0;
    let closed = false;
    async function* endless(): AsyncGenerator<Buffer> {
      try {
        yield Buffer.from('First Name,Phone\n');
        for (let i = 0; ; i++) {
          const chunk = Buffer.from(`Ann${i},+1415555${String(1000 + (i % 9000))}\n`);
          pulled += 1;
          pulledBytes += chunk.length;
          yield chunk;
        }
      } finally {
        closed = true;
      }
    }
    const parts = parseInThread(endless(), options(10));
    expect((await parts.next()).value).toEqual({ kind: 'headers', headers: ['First Name', 'Phone'] });
    // Wait until the reading settles (the thread may be slow to start on a loaded machine), at most 10 s.
    let seen = -1;
    for (let waited = 0; waited < 10_000 && (seen !== pulled || pulled === 0); waited += 400) {
      seen = pulled;
      await new Promise((r) => setTimeout(r, 400));
    }
    // Two parts ahead, the one being filled and what the streams between reader and parser buffer (16 KiB
    // each): tens of kilobytes, then nothing more, however long the writer waits.
    expect(pulled).toBe(seen);
    expect(pulled).toBeGreaterThanOrEqual(30);
    expect(pulledBytes).toBeLessThan(64 * 1024);
    await parts.return(undefined);
    expect(closed).toBe(true);
  });
});
