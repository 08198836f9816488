import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The tiers (docs/testing.md). `npm test` runs this config: every suite under test/ except the SLOW ones
 * listed here, so a new feature folder lands in the everyday tier by default. `npm run test:all`
 * (vitest.all.config.ts, what .ci/run runs) adds them back. A suite belongs here when it drives a browser,
 * builds or spawns the compiled CLI (multi-process, crash, CLI), writes volume, or fuzzes.
 */
export const SLOW_SUITES = [
  // Browser: the console through Debian's chromium.
  'test/e2e/**',
  // Volume and scale-out: 100k-row imports, several server processes.
  'test/volume/**',
  'test/scale/**',
  // Fuzzing.
  'test/hardening/fuzz.test.ts',
  // The compiled CLI (a build, then child processes): multi-process, crash and CLI suites.
  'test/cli/**',
  'test/console/cli.test.ts',
  'test/console/events.test.ts',
  'test/compat/first-hour.test.ts',
  'test/imports/cli.test.ts',
  'test/channels/crash-sends.test.ts',
  'test/webhooks/crash.test.ts',
  'test/webhooks/multi-worker.test.ts',
  'test/jobs/wake-across-processes.test.ts',
  'test/sending-numbers/multi-process.test.ts',
  'test/hardening/logs.test.ts',
  'test/hardening/keys.test.ts',
  'test/hardening/dependencies.test.ts',
];

/** What both tiers share. */
export const shared = {
  include: ['test/**/*.test.ts'],
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  // Most suites wait on timers, child processes and databases rather than the CPU:
  // three files at a time finish sooner than two on a two-core machine.
  maxWorkers: 3,
};

export default defineConfig({
  test: {
    ...shared,
    exclude: [...configDefaults.exclude, ...SLOW_SUITES],
    reporters: ['default', ['./test/support/timing-reporter.ts', { tier: 'fast (npm test)' }]],
  },
});
