import { defineConfig } from 'vitest/config';

/**
 * Used only by Stryker (`npm run mutation`, see docs/mutation.md): the fast,
 * pure or in-memory-SQLite unit tests of the compliance code. Never the HTTP
 * or PostgreSQL suites, so no globalSetup (nothing here asks for
 * `inject('pgAvailable')`). Stryker's vitest runner itself forces one thread
 * per Stryker worker.
 */
export default defineConfig({
  test: {
    include: [
      'test/compliance/consent-rules.test.ts',
      'test/compliance/recognizer.test.ts',
      'test/compliance/recognizer.mutation.test.ts',
      'test/compliance/gate.unit.test.ts',
      'test/compliance/gate.mutation.test.ts',
      'test/compliance/contact-window.test.ts',
      'test/compliance/contact-hours.test.ts',
      'test/compliance/contact-window.mutation.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'threads',
    maxWorkers: 2,
  },
});
