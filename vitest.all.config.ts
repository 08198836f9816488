import { defineConfig } from 'vitest/config';
import { shared } from './vitest.config.js';

/** `npm run test:all` (and .ci/run): every suite, the SLOW ones of vitest.config.ts included. */
export default defineConfig({
  test: {
    ...shared,
    reporters: ['default', ['./test/support/timing-reporter.ts', { tier: 'all (npm run test:all)' }]],
  },
});
