#!/usr/bin/env node
// The CLI runs from the compiled tree: `npm ci` builds it (prepare), `npm start` rebuilds it when a source changed.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('parley: the compiled CLI is missing; run `npm run build` first.');
  process.exit(1);
}
await import(entry.href);
