import type { Clock } from '../../src/platform/clock.js';

/**
 * The server's clock in tests: real time by default, or moved to any instant
 * (it keeps running from there, so leases, retries and polling behave as in
 * production). Contact-hours and frequency-cap tests set it instead of
 * widening the windows to 24 hours.
 */
export class TestClock implements Clock {
  private offsetMs = 0;

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
    this.offsetMs = 0;
  }
}
