import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * The console is served by Parley itself under /console/ with a strict CSP
 * (no inline script or style), so nothing may be inlined into index.html:
 * the modulepreload polyfill (an inline script) is off, and assets stay files.
 */
export default defineConfig({
  root: here('.'),
  base: '/console/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: here('../dist/console'),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
