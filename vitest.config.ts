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
  'test/handoffs/console-handoffs.test.ts',
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
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  // Most suites wait on timers, child processes and databases rather than the CPU:
  // three files at a time finish sooner than two on a two-core machine.
  maxWorkers: 3,
};

/**
 * Files that replace modules (`vi.mock`) or process-wide state: run each in a fresh module graph. Every other
 * file shares its worker's loaded modules with the files before it (`isolate: false`): the app is imported
 * once per worker instead of once per file, which halves the tier's wall time. Add a file here when it mocks.
 */
export const ISOLATED = ['test/compliance/contact-window.mutation.test.ts', 'test/platform/config.test.ts'];

/** The two projects of a tier: shared modules for `include` minus ISOLATED and `exclude`, fresh ones for the rest. */
export function projects(exclude: string[], isolatedToo: string[] = []) {
  return [
    {
      extends: true as const,
      test: {
        name: 'shared',
        isolate: false,
        include: ['test/**/*.test.ts'],
        exclude: [...configDefaults.exclude, ...exclude, ...ISOLATED, ...isolatedToo],
      },
    },
    // A folder pattern names its test files only (test/e2e/support.ts is no suite).
    {
      extends: true as const,
      test: {
        name: 'isolated',
        isolate: true,
        include: [...ISOLATED, ...isolatedToo].map((p) => (p.endsWith('/**') ? `${p}/*.test.ts` : p)),
        exclude: [...configDefaults.exclude, ...exclude],
      },
    },
  ];
}

export default defineConfig({
  test: {
    ...shared,
    projects: projects(SLOW_SUITES),
    reporters: ['default', ['./test/support/timing-reporter.ts', { tier: 'fast (npm test)' }]],
  },
});
