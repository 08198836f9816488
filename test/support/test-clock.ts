import type { Clock } from '../../src/platform/clock.js';

/**
 * Where a TestClock starts: real time, unless PARLEY_TEST_CLOCK_START names an instant
 * (`npm run test:night` sets 23:00 in Los Angeles). A suite that sends without moving the clock
 * then runs in the legal night of its leads' zone, as it would on a late run in California, and fails
 * there instead of on a developer's evening: the check that no suite leans on the time of day.
 */
function startOffset(): number {
  const at = process.env.PARLEY_TEST_CLOCK_START;
  if (!at) return 0;
  const ms = new Date(at).getTime();
  if (Number.isNaN(ms)) throw new Error(`PARLEY_TEST_CLOCK_START is not a date: ${at}`);
  return ms - Date.now();
}

/**
 * The server's clock in tests: real time by default, or moved to any instant
 * (it keeps running from there, so leases, retries and polling behave as in
 * production). Contact-hours and frequency-cap tests set it instead of
 * widening the windows to 24 hours.
 */
export class TestClock implements Clock {
  private offsetMs = startOffset();

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** From now on, time runs from `at`. */
  set(at: Date | string): void {
    this.offsetMs = new Date(at).getTime() - Date.now();
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  reset(): void {
    this.offsetMs = startOffset();
  }
}
