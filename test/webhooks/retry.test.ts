import { describe, expect, it } from 'vitest';
import { jitter, retryDelayMs } from '../../src/webhooks/retry.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
/** docs/contract.md: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
const SCHEDULE = [0, 5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H];
const middle = () => 0.5;

describe('the wait before the next webhook attempt', () => {
  it("is the schedule's step for it, jittered by at most ±10 %", () => {
    expect(retryDelayMs(SCHEDULE, 1, null, middle)).toBe(5 * S);
    expect(retryDelayMs(SCHEDULE, 2, null, middle)).toBe(5 * M);
    expect(retryDelayMs(SCHEDULE, 2, null, () => 0)).toBe(0.9 * 5 * M);
    expect(retryDelayMs(SCHEDULE, 2, null, () => 0.999999)).toBeLessThanOrEqual(1.1 * 5 * M);
    expect(jitter(1000, () => 0)).toBe(900);
    expect(jitter(1000, () => 1)).toBe(1100);
  });

  it('honours a longer Retry-After up to the step after it, never beyond', () => {
    // After the first failure the schedule waits 5 s; Retry-After: 60 is within the next step (5 min).
    expect(retryDelayMs(SCHEDULE, 1, 60, middle)).toBe(60 * S);
    // A year is cut to the next step.
    expect(retryDelayMs(SCHEDULE, 1, 365 * 24 * 3600, middle)).toBe(5 * M);
    expect(retryDelayMs(SCHEDULE, 3, 365 * 24 * 3600, middle)).toBe(2 * H);
    // At the schedule's last step there is no later one: the last step is the ceiling.
    expect(retryDelayMs(SCHEDULE, 7, 365 * 24 * 3600, middle)).toBe(10 * H);
  });

  it('never shortens the schedule: a Retry-After below the step (or 0, or nonsense) changes nothing', () => {
    expect(retryDelayMs(SCHEDULE, 2, 1, middle)).toBe(5 * M);
    expect(retryDelayMs(SCHEDULE, 2, 0, middle)).toBe(5 * M);
    expect(retryDelayMs(SCHEDULE, 2, Number.NaN, middle)).toBe(5 * M);
    expect(retryDelayMs(SCHEDULE, 2, -5, middle)).toBe(5 * M);
  });
});
