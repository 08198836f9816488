import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Used only by Stryker (`npm run mutation`, see docs/mutation.md): the fast,
 * pure or in-memory-SQLite unit tests of the compliance code. Never the HTTP
 * or PostgreSQL suites, so no globalSetup (nothing here asks for
 * `inject('pgAvailable')`).
 */
const FAST_FIRST = [
  'consent-rules.test.ts',
  'recognizer.mutation.test.ts',
  'gate.mutation.test.ts',
  'contact-window.mutation.test.ts',
];

/**
 * Stryker stops a mutant's run at its first failing test (bail). Most of the
 * recogniser's mutants are "static" (its tables are built when the module
 * loads, and the corpus test reads the whole corpus while it is collected),
 * so each of them runs every related test file: the exact, cheap tables of
 * the *.mutation.test.ts files go first, and the slow corpus and property
 * suites run only for the mutants those tables do not kill.
 */
class FastFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = FAST_FIRST.findIndex((name) => f.moduleId.endsWith(`/${name}`));
      return i === -1 ? FAST_FIRST.length : i;
    };
    return [...files].sort((a, b) => rank(a) - rank(b) || a.moduleId.localeCompare(b.moduleId));
  }
}

/**
 * Some property tests in the suites above draw their cases unseeded, so a
 * mutant could be "killed" or not by chance. Under Stryker every fast-check
 * run gets this one seed (a setup file served from this config, so it needs
 * no file of its own): each mutant sees the same cases, and a rerun the same
 * score. Tests that pass their own seed keep it.
 */
const FAST_CHECK_SEED = 'virtual-fast-check-seed.ts';
const fastCheckSeed = {
  name: 'fast-check-seed',
  enforce: 'pre' as const,
  resolveId: (id: string) => (id.endsWith(FAST_CHECK_SEED) ? `\0${FAST_CHECK_SEED}` : null),
  load: (id: string) =>
    id === `\0${FAST_CHECK_SEED}`
      ? "import fc from 'fast-check';\nfc.configureGlobal({ ...fc.readConfigureGlobal(), seed: 20261123 });\n"
      : null,
};

export default defineConfig({
  plugins: [fastCheckSeed],
  test: {
    setupFiles: [FAST_CHECK_SEED],
    include: [
      'test/subscriptions/consent-rules.test.ts',
      'test/compliance/recognizer.mutation.test.ts',
      'test/compliance/recognizer.test.ts',
      'test/compliance/gate.mutation.test.ts',
      'test/compliance/gate.unit.test.ts',
      'test/compliance/contact-window.mutation.test.ts',
      'test/compliance/contact-window.test.ts',
      'test/compliance/contact-hours.test.ts',
      'test/compliance/night-floor.test.ts',
      'test/compliance/phone-geo.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Stryker's vitest runner itself runs one file at a time per Stryker worker (threads, maxWorkers 1).
    pool: 'threads',
    maxWorkers: 2,
    sequence: { sequencer: FastFirst },
  },
});
