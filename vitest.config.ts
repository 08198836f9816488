import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most suites wait on timers, child processes and databases rather than the CPU:
    // three files at a time finish sooner than two on a two-core machine.
    maxWorkers: 3,
  },
});
