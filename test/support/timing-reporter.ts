import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

/**
 * Prints, at the end of a run, the tier's wall time and its ten slowest files (their time from collection to
 * the last test, as vitest measures a file). `npm test` and `npm run test:all` export PARLEY_TIER_START (ms since
 * the epoch) before the typecheck, so the total printed covers the typecheck too. PARLEY_TEST_TIMINGS=<file>
 * also writes every file's time there as JSON (how docs/testing.md's table is made).
 */
export default class TimingReporter implements Reporter {
  private started = Date.now();
  private root = process.cwd();

  constructor(private readonly options: { tier?: string } = {}) {}

  onInit(vitest: Vitest): void {
    this.started = Date.now();
    this.root = vitest.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const now = Date.now();
    const files = modules
      .map((m) => ({
        file: relative(this.root, m.moduleId),
        seconds: Math.round(m.diagnostic().duration / 100) / 10,
        state: m.state(),
      }))
      .sort((a, b) => b.seconds - a.seconds);
    const tier = this.options.tier ?? 'tests';
    const since = Number(process.env.PARLEY_TIER_START);
    const total =
      Number.isFinite(since) && since > 0 ? `, ${((now - since) / 1000).toFixed(1)} s with the typecheck` : '';
    const lines = [
      '',
      `tier ${tier}: ${files.length} files, vitest ${((now - this.started) / 1000).toFixed(1)} s wall${total}`,
      'slowest files:',
      ...files.slice(0, 10).map((f) => `  ${f.seconds.toFixed(1).padStart(6)} s  ${f.file}`),
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const out = process.env.PARLEY_TEST_TIMINGS;
    if (out)
      writeFileSync(
        out,
        `${JSON.stringify({ tier, wallSeconds: (now - this.started) / 1000, totalSeconds: Number.isFinite(since) && since > 0 ? (now - since) / 1000 : null, files }, null, 2)}\n`,
      );
  }
}
