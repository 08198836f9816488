import { defineConfig } from 'vitest/config';
import { projects, shared, SLOW_SUITES } from './vitest.config.js';

/**
 * `npm run test:all` (and .ci/run): every suite. The SLOW ones (vitest.config.ts) run each in a fresh module
 * graph, as they always did; the rest as in `npm test`.
 */
export default defineConfig({
  test: {
    ...shared,
    projects: projects([], SLOW_SUITES),
    reporters: ['default', ['./test/support/timing-reporter.ts', { tier: 'all (npm run test:all)' }]],
  },
});
