// Mutation testing of the compliance code (docs/mutation.md). `npm run mutation`
// mutates every file below; one file at a time: `npm run mutation -- --mutate src/compliance/gate.ts`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts' },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/subscriptions/consent-rules.ts',
    'src/compliance/opt-out-recognizer.ts',
    'src/compliance/gate.ts',
    'src/compliance/contact-window.ts',
    'src/compliance/contact-hours.ts',
    'src/compliance/lead-window.ts',
    'src/compliance/regional-windows.ts',
    'src/compliance/lead-zones.ts',
    'src/compliance/phone-geo.ts',
  ],
  concurrency: 2,
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 85, break: 85 },
  tempDirName: '.stryker-tmp',
  // Infinite loops are caught by Stryker's hit limit; this only has to outlast a slow, loaded run of the
  // whole recogniser suite, so that a surviving mutant is reported as Survived and not as a (detected) Timeout.
  timeoutMS: 20000,
  // Not needed by the unit tests above; keeps each sandbox copy small.
  ignorePatterns: ['dist', 'data', 'bench', 'reports', '.depcruise-fixture-*'],
};
