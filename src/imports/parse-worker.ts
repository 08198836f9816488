import { parentPort, workerData } from 'node:worker_threads';
import { scanLaterRows } from './look-ahead.js';
import { parseCsv, type ParseOptions } from './parse.js';
import type { FromParser, ToParser } from './parse-thread.js';

/**
 * The parsing thread of an import (parse-thread.ts starts it): pulls the
 * file's bytes from the importing thread a chunk at a time, and hands back
 * parsed parts, never more than its credit ahead of the writer, so memory
 * holds a few batches whatever the file's size.
 */
// biome-ignore lint/style/noNonNullAssertion: this module runs only as parse-thread's worker, where parentPort is set
const port = parentPort!;
const options = workerData as ParseOptions;
const post = (m: FromParser) => port.postMessage(m);

let credit = 0;
let creditCame: (() => void) | null = null;
let chunkCame: ((chunk: Uint8Array | null) => void) | null = null;
port.on('message', (m: ToParser) => {
  if (m.type === 'credit') {
    credit += m.parts;
    creditCame?.();
    creditCame = null;
  } else {
    const take = chunkCame;
    chunkCame = null;
    take?.(m.type === 'chunk' ? m.data : null);
  }
});

async function* pulled(): AsyncGenerator<Buffer> {
  for (;;) {
    const chunk = await new Promise<Uint8Array | null>((resolve) => {
      chunkCame = resolve;
      post({ type: 'pull' });
    });
    if (chunk === null) return;
    yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
}

try {
  // The first pass (look-ahead.ts), when asked: the file's bytes come once more for the second.
  if (options.lookAhead) {
    const data = await scanLaterRows(pulled(), options);
    port.postMessage({ type: 'later', data } satisfies FromParser, [
      data.keys.buffer as ArrayBuffer,
      data.starts.buffer as ArrayBuffer,
      data.rows.buffer as ArrayBuffer,
      data.after.buffer as ArrayBuffer,
    ]);
  }
  for await (const part of parseCsv(pulled(), options)) {
    while (credit === 0)
      await new Promise<void>((resolve) => {
        creditCame = resolve;
      });
    credit -= 1;
    post({ type: 'part', part });
  }
  post({ type: 'done' });
} catch (err) {
  post({
    type: 'error',
    name: err instanceof Error ? err.constructor.name : 'Error',
    message: err instanceof Error ? err.message : String(err),
  });
}
