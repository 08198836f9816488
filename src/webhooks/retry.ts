/** ±10 % so a burst of failures does not come back as a burst. */
export const jitter = (ms: number, random: () => number = Math.random) => Math.round(ms * (0.9 + random() * 0.2));

/**
 * How long to wait before the next attempt, after `attempts` failed ones:
 * the schedule's step for it (jittered). A receiver's Retry-After (429, 503)
 * may ask for longer, and is honoured up to the step after that one (the last
 * step, past the end of the schedule), never beyond: a receiver answering
 * `Retry-After: 31536000` slows its own retries down, it cannot park a
 * delivery for a year or past the schedule's end.
 */
export function retryDelayMs(
  schedule: readonly number[],
  attempts: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number {
  // biome-ignore lint/style/noNonNullAssertion: the only caller (delivery.ts) calls it with attempts < schedule.length, so schedule is not empty
  const step = schedule[Math.min(attempts, schedule.length - 1)]!;
  const scheduled = jitter(step, random);
  if (retryAfterSeconds === null || !(retryAfterSeconds > 0)) return scheduled;
  // biome-ignore lint/style/noNonNullAssertion: the only caller (delivery.ts) calls it with attempts < schedule.length, so schedule is not empty
  const ceiling = schedule[Math.min(attempts + 1, schedule.length - 1)]!;
  return Math.max(scheduled, Math.min(retryAfterSeconds * 1000, Math.max(ceiling, step)));
}
