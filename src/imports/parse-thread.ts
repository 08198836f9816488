import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { MappingError } from './columns.js';
import { CsvEncodingError } from './csv-source.js';
import type { LaterRowsData } from './look-ahead.js';
import { ImportFileError, type ParsedPart, type ParseOptions } from './parse.js';

/** The importing thread to the parsing thread: the file's next bytes (or its end), and room for more parts. */
export type ToParser = { type: 'chunk'; data: Uint8Array } | { type: 'end' } | { type: 'credit'; parts: number };
/** The parsing thread to the importing thread. */
export type FromParser =
  | { type: 'pull' }
  | { type: 'part'; part: ParsedPart }
  /** The first pass is over (its look-ahead): the next pull starts the file again. */
  | { type: 'later'; data: LaterRowsData }
  | { type: 'done' }
  | { type: 'error'; name: string; message: string };

/** Parts the parser may have ready beyond the one being written: enough to keep the writer fed, few enough to hold in memory. */
const AHEAD = 2;

/**
 * The parser holds a few batches of rows at a time; left to V8's defaults its
 * heap grew to some 60 MB more than that, which the import's peak memory
 * (under 300 MB for a million rows) cannot spare.
 */
const PARSER_LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 64 };

/**
 * Compiled, the thread runs parse-worker.js beside this file. From the
 * TypeScript sources (the tests, the bench) it runs parse-worker.ts through
 * tsx, registered inside the thread (a worker's `--import` is not applied).
 */
function startParser(options: ParseOptions): Worker {
  const base = { workerData: options, resourceLimits: PARSER_LIMITS };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./parse-worker.js', import.meta.url), base);
  // The test runs bundle this thread to one JavaScript file (test/support/parser-bundle.ts): a new thread then starts
  // in tens of milliseconds, where registering tsx in it cost some 400 ms of every import.
  const bundled = process.env.PARLEY_TEST_PARSER_BUNDLE;
  if (bundled) return new Worker(pathToFileURL(bundled), base);
  // tsx's ESM entry (require.resolve would give its CommonJS one, which cannot register the ESM hooks).
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
  // biome-ignore lint/style/noNonNullAssertion: tsx's package.json exports ./esm/api (its ESM entry); this path runs only from sources, under tsx
  const api = (JSON.parse(readFileSync(pkg, 'utf8')) as { exports: Record<string, { import: { default: string } }> })
    .exports['./esm/api']!.import.default;
  const tsx = new URL(api, pathToFileURL(pkg)).href;
  const entry = new URL('./parse-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { ...base, eval: true });
}

/** The errors a file can cause, as the caller knows them (the CLI and the API turn them into their own answers). */
const ERRORS: Record<string, new (message: string) => Error> = { ImportFileError, MappingError, CsvEncodingError };

type Inbound = FromParser | { type: 'failed'; err: unknown } | { type: 'exit'; code: number };

/**
 * parseCsv on a thread of its own: the same parts, in the same order, with
 * the same errors, while this thread is free to write the batch before. On
 * SQLite the writes run on the importing thread (better-sqlite3 is
 * synchronous), so parsing beside them is what lets the two overlap; on
 * PostgreSQL it frees this thread for the driver. The source is read here,
 * one chunk each time the parser asks, so a slow writer slows the reading
 * of the file rather than filling memory.
 */
export async function* parseInThread(
  source: AsyncIterable<Buffer | string> | (() => AsyncIterable<Buffer | string>),
  options: ParseOptions,
  onBytes: (n: number) => void = () => {},
): AsyncGenerator<ParsedPart | { kind: 'later'; data: LaterRowsData }> {
  // A source that can be opened twice is read twice: first for the look-ahead (look-ahead.ts), then to import.
  const open = typeof source === 'function' ? source : () => source;
  const worker = startParser({ ...options, lookAhead: typeof source === 'function' });
  let input = open()[Symbol.asyncIterator]();
  let scanning = typeof source === 'function';
  const inbox: Inbound[] = [];
  let wake: (() => void) | null = null;
  const deliver = (m: Inbound) => {
    inbox.push(m);
    wake?.();
    wake = null;
  };
  const send = (m: ToParser, transfer: ArrayBuffer[] = []) => worker.postMessage(m, transfer);
  worker.on('message', (m: FromParser) => {
    if (m.type === 'later') {
      // The first pass has read what it needed (all of the file, or up to an error): the import reads it anew.
      const done = input;
      scanning = false;
      input = open()[Symbol.asyncIterator]();
      void done.return?.();
      deliver(m);
      return;
    }
    if (m.type !== 'pull') {
      deliver(m);
      return;
    }
    input.next().then(
      (next) => {
        if (next.done) return send({ type: 'end' });
        // A copy of just these bytes, handed over: a stream's chunk may be a view into a larger shared buffer.
        const data =
          typeof next.value === 'string' ? new Uint8Array(Buffer.from(next.value)) : new Uint8Array(next.value);
        if (!scanning) onBytes(data.length);
        send({ type: 'chunk', data }, [data.buffer]);
      },
      (err: unknown) => deliver({ type: 'failed', err }),
    );
  });
  worker.on('error', (err) => deliver({ type: 'failed', err }));
  worker.on('exit', (code) => deliver({ type: 'exit', code }));
  send({ type: 'credit', parts: AHEAD });
  try {
    for (;;) {
      while (inbox.length === 0)
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      // biome-ignore lint/style/noNonNullAssertion: the loop above waits until inbox is not empty
      const m = inbox.shift()!;
      if (m.type === 'part') {
        yield m.part;
        send({ type: 'credit', parts: 1 });
      } else if (m.type === 'later') yield { kind: 'later', data: m.data };
      else if (m.type === 'done') return;
      else if (m.type === 'error') throw new (ERRORS[m.name] ?? Error)(m.message);
      else if (m.type === 'failed') throw m.err;
      else if (m.type === 'exit')
        throw new Error(`the import's parsing thread ended unexpectedly (exit code ${m.code})`);
    }
  } finally {
    await worker.terminate();
    await input.return?.();
  }
}
